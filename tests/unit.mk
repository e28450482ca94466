## Tests: check unit tests of the modules.

# The modules' headers are in src/; the tests that make files share
# tests/unitfs.c, their scratch directories and repositories and the
# shell commands run in them.
TEST_CPPFLAGS_UNIT = $(AM_CPPFLAGS) -I$(top_srcdir)/src
UNITFS = tests/unitfs.c tests/unitfs.h tests/unit.h

UNIT_TESTS_LIST += tests/check_json
tests_check_json_SOURCES = tests/check_json.c tests/unit.h
tests_check_json_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_json_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_json_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_event
tests_check_event_SOURCES = tests/check_event.c tests/unit.h
tests_check_event_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_event_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_event_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_util
tests_check_util_SOURCES = tests/check_util.c tests/unit.h
tests_check_util_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_util_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_util_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_fs
tests_check_fs_SOURCES = tests/check_fs.c $(UNITFS)
tests_check_fs_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_fs_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_fs_LDADD = $(TEST_LIBS_COMMON)
# Its own fdopendir(3) in the way of the removal's: a directory that
# cannot be read, a tree moved as the removal is in it.
tests_check_fs_LDFLAGS = -Wl,--wrap=fdopendir

UNIT_TESTS_LIST += tests/check_forgedir
tests_check_forgedir_SOURCES = tests/check_forgedir.c $(UNITFS)
tests_check_forgedir_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_forgedir_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_forgedir_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_state
tests_check_state_SOURCES = tests/check_state.c $(UNITFS)
tests_check_state_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_state_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_state_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_journal
tests_check_journal_SOURCES = tests/check_journal.c $(UNITFS)
tests_check_journal_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_journal_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_journal_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_spawn
tests_check_spawn_SOURCES = tests/check_spawn.c $(UNITFS)
tests_check_spawn_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_spawn_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_spawn_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_parse
tests_check_parse_SOURCES = tests/check_parse.c tests/unit.h
tests_check_parse_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_parse_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_parse_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_git
tests_check_git_SOURCES = tests/check_git.c $(UNITFS)
tests_check_git_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_git_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_git_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_treeid
tests_check_treeid_SOURCES = tests/check_treeid.c $(UNITFS)
tests_check_treeid_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_treeid_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_treeid_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_cache
tests_check_cache_SOURCES = tests/check_cache.c $(UNITFS)
tests_check_cache_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_cache_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_cache_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_progress
tests_check_progress_SOURCES = tests/check_progress.c tests/unit.h
tests_check_progress_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_progress_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_progress_LDADD = $(TEST_LIBS_COMMON)
UNIT_TESTS_LIST += tests/check_clone
tests_check_clone_SOURCES = tests/check_clone.c tests/unit.h
tests_check_clone_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_clone_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_clone_LDADD = $(TEST_LIBS_COMMON)
UNIT_TESTS_LIST += tests/check_bigfile
tests_check_bigfile_SOURCES = tests/check_bigfile.c tests/unit.h
tests_check_bigfile_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_bigfile_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_bigfile_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_hash
tests_check_hash_SOURCES = tests/check_hash.c tests/unit.h
tests_check_hash_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_hash_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_hash_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_gitindex
tests_check_gitindex_SOURCES = tests/check_gitindex.c $(UNITFS)
tests_check_gitindex_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_gitindex_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_gitindex_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_proof
tests_check_proof_SOURCES = tests/check_proof.c $(UNITFS)
tests_check_proof_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_proof_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_proof_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_pathmap
tests_check_pathmap_SOURCES = tests/check_pathmap.c tests/unit.h
tests_check_pathmap_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_pathmap_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_pathmap_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_runlog
tests_check_runlog_SOURCES = tests/check_runlog.c $(UNITFS)
tests_check_runlog_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_runlog_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_runlog_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_reuse
tests_check_reuse_SOURCES = tests/check_reuse.c $(UNITFS)
tests_check_reuse_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_reuse_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_reuse_LDADD = $(TEST_LIBS_COMMON)

UNIT_TESTS_LIST += tests/check_inputs
tests_check_inputs_SOURCES = tests/check_inputs.c $(UNITFS)
tests_check_inputs_CPPFLAGS = $(TEST_CPPFLAGS_UNIT)
tests_check_inputs_CFLAGS = $(TEST_CFLAGS_COMMON)
tests_check_inputs_LDADD = $(TEST_LIBS_COMMON)
