/*
 * proof_carry.c, proof_look.c and proof_reused.c, against the real git,
 * on a small repository and a worktree of it for the copy: the carried
 * indexes a proof leaves and what they are for (the copy, its kind, what
 * is left out, the source's listing), refused when damaged or gone; the
 * look at the source that starts from one; and a reused copy proved as
 * it stands, put right where it differs.
 */
#include "config.h"

#include "unit.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fs.h"
#include "fs_copy.h"
#include "git.h"
#include "lsfiles.h"
#include "proof.h"
#include "proof_int.h"
#include "rundir.h"
#include "strv.h"
#include "unitfs.h"

static char		*base, *repo, *gitdir, *copy, *copy_gitdir;
static struct rundir	 rd;
static const struct timespec settle = { 0, 50000000 };

static void
sh(const char *cmd)
{
	free(unitfs_sh_in(repo, "%s", cmd));
}

/*
 * A repository of a.txt and b.txt committed, a.txt then changed and u.txt
 * untracked; the run directory's scratch space beside it, as rundir.c
 * makes it.  The copy is made by each proof of a fresh copy.
 */
static void
setup(void)
{
	/* A test's own, should tests run in one process (CK_FORK=no). */
	free(base);
	free(repo);
	free(gitdir);
	free(copy);
	free(copy_gitdir);
	copy_gitdir = NULL;
	free(rd.scratch);
	free(rd.objects);
	free(rd.blobs);
	free(rd.blobs_last);
	free(rd.carry);
	ck_assert_int_eq(git_init(), 0);
	base = unitfs_dir("proof");
	/* No configuration of the machine's or the user's. */
	unitfs_home(base);
	repo = unitfs_repo(base, "repo");
	gitdir = unitfs_path(repo, ".git");
	copy = unitfs_path(base, "copy");
	memset(&rd, 0, sizeof(rd));
	rd.top = base;
	rd.scratch = unitfs_path(base, "scratch");
	rd.objects = unitfs_path(rd.scratch, "objects");
	rd.blobs = unitfs_path(rd.scratch, "blobs");
	rd.blobs_last = unitfs_path(rd.scratch, "blobs.last");
	rd.carry = unitfs_path(rd.scratch, "carry");
	ck_assert_int_eq(fs_mkdirs(rd.objects, 0700), 0);
	ck_assert_int_eq(fs_mkdirs(rd.blobs, 0700), 0);
	ck_assert_int_eq(fs_mkdirs(rd.blobs_last, 0700), 0);
	sh("printf 'a\\n' >a.txt && printf 'b\\n' >b.txt && "
	    "git add a.txt b.txt && git commit -q -m t && "
	    "printf 'A\\n' >>a.txt && printf 'u\\n' >u.txt && "
	    "mkdir .git/forge");
	/* The files older than anything the proofs will stamp: none of
	 * them is as recent as a carried index ("racily clean"). */
	(void)nanosleep(&settle, NULL);
}

/* The tree git makes of the working state, from a copy of its index. */
static char *
tree_now(void)
{
	return unitfs_sh_in(repo, "cp -p .git/index '%s/tree.index' && "
	    "GIT_INDEX_FILE='%s/tree.index' git add -A && "
	    "GIT_INDEX_FILE='%s/tree.index' git write-tree", base, base, base);
}

/* A file replaced as reuse_look_fix() replaces it: a new inode. */
static void
put(const char *dir, const char *name, const char *text)
{
	char	*p, *tmp;

	p = unitfs_path(dir, name);
	tmp = unitfs_path(dir, ".put.tmp");
	unitfs_write(tmp, text, 0644);
	ck_assert_int_eq(rename(tmp, p), 0);
	free(tmp);
	free(p);
}

/* One proof, with what it borrows until proof_free(). */
struct run {
	struct proof_repo	 pr;
	struct lsfiles		 l;
	struct strv		 exclude;
	struct git		 g;
	char			*index, *objects, *head;
	struct proof		*p;
};

static void
run_begin(struct run *r, size_t id, int reused, const char *exclude,
    const struct proof_look *lk)
{
	char	*idx;

	memset(r, 0, sizeof(*r));
	r->index = unitfs_path(rd.scratch, "index.src");
	idx = unitfs_path(gitdir, "index");
	ck_assert_int_eq(fs_copy_file(idx, r->index), 0);
	free(idx);
	r->objects = unitfs_path(gitdir, "objects");
	r->head = unitfs_sh_in(repo, "git rev-parse HEAD");
	r->g.dir = repo;
	r->g.gitdir = gitdir;
	r->g.worktree = repo;
	r->g.index = r->index;
	ck_assert_int_eq(lsfiles_read(&r->l, &r->g), 0);
	if (exclude != NULL)
		strv_push(&r->exclude, exclude);
	r->pr.src = repo;
	r->pr.common = gitdir;
	r->pr.look = lk;
	r->pr.gitdir = gitdir;
	r->pr.index = r->index;
	r->pr.objects = r->objects;
	r->pr.head = r->head;
	r->pr.dst = copy;
	r->pr.rel = "";
	r->pr.entries = &r->l.entries;
	r->pr.exclude = &r->exclude;
	r->pr.carry = 1;
	r->pr.reused = reused;
	r->p = proof_begin(&r->pr, &r->l, &rd, id);
	ck_assert_ptr_nonnull(r->p);
}

static void
run_free(struct run *r)
{
	proof_free(r->p);
	lsfiles_free(&r->l);
	strv_free(&r->exclude);
	(void)unlink(r->index);
	free(r->index);
	free(r->objects);
	free(r->head);
}

/*
 * A copy proved, as snapshot.c builds one: the proof begun, the copy
 * checked out (few: as a copy taken back, proof_checked_out()), after
 * (NULL: nothing) run in it, then what of the working state differs from
 * HEAD put in it.  The tree the proof gives (NULL: none), and the working
 * state's into *want; the caller frees both.
 */
static char *
prove_copy(size_t id, int few, const char *after, char **want)
{
	struct run	 r;
	char		*tree;

	run_begin(&r, id, 0, NULL, NULL);
	free(unitfs_sh_in(base, "rm -rf copy && git -C repo worktree prune && "
	    "git -C repo worktree add -q --detach '%s' HEAD", copy));
	proof_checked_out(r.p, few);
	if (after != NULL)
		free(unitfs_sh_in(copy, "%s", after));
	free(unitfs_sh_in(repo,
	    "for f in $(git ls-files -m -o --exclude-standard); "
	    "do cp -p \"$f\" '%s'/\"$f\"; done", copy));
	free(copy_gitdir);
	copy_gitdir = unitfs_sh_in(copy, "git rev-parse --absolute-git-dir");
	proof_index_ready(r.p, copy_gitdir);
	tree = proof_finish(r.p);
	*want = tree_now();
	run_free(&r);
	return tree;
}

/* A fresh copy proved; each side's index is carried. */
static void
prove_fresh(size_t id)
{
	char	*tree, *want;

	tree = prove_copy(id, 0, NULL, &want);
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
}

/*
 * A copy taken as one its checkout wrote few files of (a parked copy
 * brought up to date): the clock is not waited for, and a tracked file
 * rewritten right after, in the same tick, its size and times put back,
 * is looked at all the same -- the proof does not pass a copy that
 * differs from the working state.  Put back as it was, it passes.
 */
START_TEST(t_checked_out_few)
{
	char	*tree, *want;

	setup();
	tree = prove_copy(0, 1, "cp -p b.txt .saved && "
	    "tr a-z A-Z <.saved >b.txt && touch -r .saved b.txt && "
	    "rm .saved", &want);
	ck_assert_ptr_null(tree);
	free(want);
	tree = prove_copy(0, 1, NULL, &want);
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
}
END_TEST

/* The copy's carried index for the copy, as proof_carry_copy_index() finds
 * it; NULL if none. */
static char *
carried(size_t id, const char *dst, int own_ignored)
{
	struct timespec	 t;
	struct stat	 st;
	char		*idx;

	t.tv_sec = 1;
	idx = proof_carry_copy_index(&rd, id, dst, own_ignored, &t);
	if (idx == NULL) {
		ck_assert(t.tv_sec == 0 && t.tv_nsec == 0);
		return NULL;
	}
	ck_assert_int_eq(stat(idx, &st), 0);
	ck_assert(t.tv_sec == st.st_mtim.tv_sec &&
	    t.tv_nsec == st.st_mtim.tv_nsec);
	return idx;
}

/* Is s in v? */
static int
has(const struct strv *v, const char *s)
{
	size_t	i;

	for (i = 0; v != NULL && i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return 1;
	return 0;
}

#define OID_A	"0123456789012345678901234567890123456789"

/* el emptied, then holding one entry. */
static void
only_entry(struct entlist *el, unsigned mode, const char *oid,
    const char *path)
{
	entlist_free(el);
	ck_assert_int_eq(entlist_push(el, mode, oid, strlen(oid), path,
	    strlen(path)), 0);
}

/* The source's key, the look's freed: into *same_look, 1 if the look's
 * is look. */
static char *
src_key(const struct proof_repo *pr, const struct lsfiles *l,
    const char *look, int *same_look)
{
	char	*k, *lk;

	k = proof_carry_src_key(pr, l, &lk);
	ck_assert_ptr_nonnull(lk);
	ck_assert_str_ne(k, lk);
	if (same_look != NULL)
		*same_look = look != NULL && strcmp(look, lk) == 0;
	free(lk);
	return k;
}

/* The source's key is made of everything its side is computed from:
 * any of it changed, another key; and so the look's, but for the
 * untracked files and the index's entries, which the look sees to
 * itself. */
START_TEST(t_src_key)
{
	struct proof_repo	 pr;
	struct lsfiles		 l;
	struct entlist		 entries = ENTLIST_INIT;
	struct strv		 exclude = STRV_INIT, none = STRV_INIT;
	struct strv		*lists[6];
	char			*key, *other, *look;
	size_t			 i;
	int			 same;

	memset(&pr, 0, sizeof(pr));
	memset(&l, 0, sizeof(l));
	only_entry(&entries, 0100644, OID_A, "a.txt");
	pr.src = "/src";
	pr.gitdir = "/src/.git";
	pr.entries = &entries;
	pr.exclude = &exclude;
	key = proof_carry_src_key(&pr, &l, &look);
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_eq(key, other);
	ck_assert_int_eq(same, 1);
	free(other);
	pr.src = "/elsewhere";
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_ne(key, other);
	ck_assert_int_eq(same, 0);
	free(other);
	pr.src = "/src";
	pr.gitdir = "/src/.git/worktrees/w";
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_ne(key, other);
	ck_assert_int_eq(same, 0);
	free(other);
	pr.gitdir = "/src/.git";
	lists[0] = &none;	/* for entries, an entry pushed */
	lists[1] = &exclude;
	lists[2] = &l.untracked;
	lists[3] = &l.flagged;
	lists[4] = &l.nested;
	lists[5] = &l.conflicts;
	for (i = 0; i < 6; i++) {
		if (i == 0)
			only_entry(&entries, 0100644, OID_A, "z.txt");
		else
			strv_push(lists[i], "z.txt");
		other = src_key(&pr, &l, look, &same);
		ck_assert_msg(strcmp(key, other) != 0, "list %zu", i);
		ck_assert_msg(same == (i == 0 || lists[i] == &l.untracked),
		    "look, list %zu", i);
		free(other);
		strv_free(lists[i]);
		if (i == 0)
			only_entry(&entries, 0100644, OID_A, "a.txt");
	}
	/* The entry's mode and id count too (but for the look). */
	only_entry(&entries, 0100755, OID_A, "a.txt");
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_ne(key, other);
	ck_assert_int_eq(same, 1);
	free(other);
	only_entry(&entries, 0100644, "0123456789012345678901234567890123456788",
	    "a.txt");
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_ne(key, other);
	ck_assert_int_eq(same, 1);
	free(other);
	only_entry(&entries, 0100644, OID_A, "a.txt");
	other = src_key(&pr, &l, look, &same);
	ck_assert_str_eq(key, other);
	ck_assert_int_eq(same, 1);
	free(other);
	free(key);
	free(look);
	entlist_free(&entries);
}
END_TEST

/* Nothing carried: none found, and a reused copy cannot be proved as it
 * stands. */
START_TEST(t_none)
{
	struct proof_look	 lk;
	struct strv		 fix = STRV_INIT;
	struct run		 r;

	setup();
	ck_assert_ptr_null(carried(0, copy, 0));
	proof_look_start(&lk, &rd, 0, repo, gitdir, "0123456789012345678901"
	    "234567890123456789");
	proof_look_wait(&lk);
	ck_assert_int_eq(lk.ok, 0);
	proof_look_free(&lk);
	run_begin(&r, 0, 1, NULL, NULL);
	ck_assert_ptr_null(proof_reused_index(r.p));
	ck_assert_int_eq(proof_reused_time(r.p), 0);
	ck_assert_int_eq(proof_reused(r.p, copy, &fix), -1);
	ck_assert_uint_eq(fix.n, 0);
	ck_assert_int_eq(proof_look_source_looked(r.p), -1);
	ck_assert_ptr_null(proof_look_source_paths(r.p));
	ck_assert_ptr_null(proof_look_source_gone(r.p));
	run_free(&r);
}
END_TEST

/* A fresh copy's proof carries its index: found for that copy, that
 * kind of copy and that proof's id alone, and for nothing left out. */
START_TEST(t_carried)
{
	struct run	 r;
	struct stat	 st;
	char		*idx, *other;

	setup();
	prove_fresh(0);
	idx = carried(0, copy, 0);
	ck_assert_ptr_nonnull(idx);
	ck_assert_ptr_null(carried(1, copy, 0));
	other = unitfs_path(base, "other");
	ck_assert_ptr_null(carried(0, other, 0));
	free(other);
	/* A copy with ignored files of its own is another kind. */
	ck_assert_ptr_null(carried(0, copy, 1));
	/* The proof of a reused copy finds the same, if it leaves out
	 * what the proof before left out. */
	run_begin(&r, 0, 1, "sub", NULL);
	ck_assert_ptr_null(proof_reused_index(r.p));
	run_free(&r);
	run_begin(&r, 0, 1, NULL, NULL);
	ck_assert_ptr_nonnull(proof_reused_index(r.p));
	ck_assert_str_eq(proof_reused_index(r.p), idx);
	ck_assert_int_eq(stat(idx, &st), 0);
	ck_assert_int_eq(proof_reused_time(r.p), st.st_mtim.tv_sec);
	run_free(&r);
	free(idx);
}
END_TEST

/* A carried index that is not as forge left it, or whose seal is not,
 * is not found. */
START_TEST(t_damaged)
{
	struct timespec	 t[2];
	char		*idx, *key, *src_key;
	int		 how, fd;

	setup();
	for (how = 0; how < 8; how++) {
		prove_fresh(0);
		idx = carried(0, copy, 0);
		ck_assert_ptr_nonnull(idx);
		key = proof_carry_path(&rd, 0, "dst", "key");
		src_key = proof_carry_path(&rd, 0, "src", "key");
		switch (how) {
		case 0:		/* a byte more */
			fd = open(idx, O_WRONLY | O_APPEND);
			ck_assert_int_ne(fd, -1);
			ck_assert_int_eq(write(fd, "x", 1), 1);
			close(fd);
			break;
		case 1:		/* shorter */
			ck_assert_int_eq(truncate(idx, 12), 0);
			break;
		case 2:		/* another time, its content as it was */
			t[0].tv_sec = t[1].tv_sec = 1000000000;
			t[0].tv_nsec = t[1].tv_nsec = 0;
			ck_assert_int_eq(utimensat(AT_FDCWD, idx, t, 0), 0);
			break;
		case 3:		/* a copy of it, times and all */
			free(unitfs_sh_in(base, "cp -p '%s' '%s.cp' && "
			    "mv '%s.cp' '%s'", idx, idx, idx, idx));
			break;
		case 4:		/* a symlink to such a copy */
			free(unitfs_sh_in(base, "cp -p '%s' '%s.cp' && "
			    "ln -sf '%s.cp' '%s'", idx, idx, idx, idx));
			break;
		case 5:		/* the seal of another index */
			free(unitfs_sh_in(base, "cp '%s' '%s'", src_key, key));
			break;
		case 6:
			ck_assert_int_eq(unlink(key), 0);
			break;
		case 7:
			ck_assert_int_eq(unlink(idx), 0);
			break;
		}
		ck_assert_msg(carried(0, copy, 0) == NULL, "damage %d", how);
		free(idx);
		free(key);
		free(src_key);
	}
}
END_TEST

/* A reused copy that holds the working state is proved as it stands,
 * and that proof is the tree of the working state. */
START_TEST(t_reused_as_is)
{
	struct strv	 fix = STRV_INIT;
	struct run	 r;
	char		*tree, *want;

	setup();
	prove_fresh(0);
	run_begin(&r, 0, 1, NULL, NULL);
	ck_assert_ptr_nonnull(proof_reused_index(r.p));
	ck_assert_int_eq(proof_reused_start(r.p, copy_gitdir), 0);
	ck_assert_int_eq(proof_reused(r.p, copy_gitdir, &fix), 1);
	ck_assert_uint_eq(fix.n, 0);
	ck_assert_ptr_nonnull(proof_reused_copy_index(r.p));
	tree = proof_finish(r.p);
	want = tree_now();
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	run_free(&r);
}
END_TEST

/* The clocks carried beside the copy's index: steady as carried; not
 * after another boot, nor once the real-time clock is set back. */
START_TEST(t_clock)
{
	char		*path, line[160], boot[64];
	long long	 r, b;
	FILE		*f;

	setup();
	prove_fresh(0);
	ck_assert_int_eq(proof_carry_clock_steady(&rd, 0), 1);
	path = unitfs_path(rd.carry, "dst0.clock");
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_ptr_nonnull(fgets(line, sizeof(line), f));
	fclose(f);
	ck_assert_int_eq(sscanf(line, "%63s %lld %lld", boot, &r, &b), 3);
	/* Carried ten seconds ahead of the clock now: set back since. */
	f = fopen(path, "w");
	fprintf(f, "%s %lld %lld\n", boot, r + 10000000000LL, b);
	fclose(f);
	ck_assert_int_eq(proof_carry_clock_steady(&rd, 0), 0);
	/* Another boot's. */
	f = fopen(path, "w");
	fprintf(f, "x%s %lld %lld\n", boot, r, b);
	fclose(f);
	ck_assert_int_eq(proof_carry_clock_steady(&rd, 0), 0);
	/* None. */
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(proof_carry_clock_steady(&rd, 0), 0);
	free(path);
}
END_TEST

/* Where it differs, each path is said with its modes in the copy and in
 * the working state; once put right, it is proved. */
START_TEST(t_reused_fix)
{
	struct strv	 fix = STRV_INIT, again = STRV_INIT;
	struct run	 r;
	char		*tree, *want, *p;

	setup();
	prove_fresh(0);
	/* b.txt changed, u.txt gone, v.txt new. */
	sh("printf 'B\\n' >>b.txt && rm u.txt && printf 'v\\n' >v.txt");
	run_begin(&r, 0, 1, NULL, NULL);
	ck_assert_int_eq(proof_reused(r.p, copy_gitdir, &fix), 0);
	ck_assert_uint_eq(fix.n, 3);
	ck_assert(has(&fix, "100644 100644\tb.txt"));
	ck_assert(has(&fix, "100644 000000\tu.txt"));
	ck_assert(has(&fix, "000000 100644\tv.txt"));
	put(copy, "b.txt", "b\nB\n");
	put(copy, "v.txt", "v\n");
	p = unitfs_path(copy, "u.txt");
	ck_assert_int_eq(unlink(p), 0);
	free(p);
	ck_assert_int_eq(proof_reused(r.p, copy_gitdir, &again), 1);
	ck_assert_uint_eq(again.n, 0);
	tree = proof_finish(r.p);
	want = tree_now();
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	run_free(&r);
	strv_free(&fix);
	strv_free(&again);
}
END_TEST

/* The look at the source finds what changed since the source's carried
 * index, and its side looks at that alone. */
START_TEST(t_look)
{
	struct proof_look	 lk;
	struct strv		 fix = STRV_INIT;
	struct run		 r;
	char			*head, *tree, *want;

	setup();
	prove_fresh(0);
	sh("printf 'AA\\n' >>a.txt");
	head = unitfs_sh_in(repo, "git rev-parse HEAD");
	proof_look_start(&lk, &rd, 0, repo, gitdir, head);
	proof_look_wait(&lk);
	ck_assert_int_eq(lk.ok, 1);
	ck_assert(has(&lk.stale, "a.txt"));
	ck_assert(!has(&lk.stale, "b.txt"));
	run_begin(&r, 0, 1, NULL, &lk);
	proof_look_free(&lk);
	ck_assert_int_ge(proof_look_source_looked(r.p), 1);
	ck_assert(has(proof_look_source_paths(r.p), "a.txt"));
	ck_assert(!has(proof_look_source_paths(r.p), "b.txt"));
	ck_assert_ptr_nonnull(proof_look_source_gone(r.p));
	ck_assert_uint_eq(proof_look_source_gone(r.p)->n, 0);
	put(copy, "a.txt", "a\nA\nAA\n");
	ck_assert_int_eq(proof_reused(r.p, copy_gitdir, &fix), 1);
	tree = proof_finish(r.p);
	want = tree_now();
	ck_assert_ptr_nonnull(tree);
	ck_assert_str_eq(tree, want);
	free(tree);
	free(want);
	free(head);
	run_free(&r);
	strv_free(&fix);
}
END_TEST

/* Two entry lists alike. */
static void
same_entlist(const struct entlist *a, const struct entlist *b)
{
	struct buf	x = BUF_INIT, y = BUF_INIT;
	size_t		i;

	ck_assert_uint_eq(a->n, b->n);
	for (i = 0; i < a->n; i++)
		ck_assert_str_eq(entlist_line(a, i, &x), entlist_line(b, i, &y));
	buf_free(&x);
	buf_free(&y);
}

/* Two string vectors alike. */
static void
same_strv(const char *what, const struct strv *a, const struct strv *b)
{
	size_t	i;

	ck_assert_msg(a->n == b->n, "%s: %zu and %zu", what, a->n, b->n);
	for (i = 0; i < a->n; i++)
		ck_assert_str_eq(a->v[i], b->v[i]);
}

/* A listing of more than a piece of 64 KiB, read from git's output file
 * a piece at a time (lsfiles_finish()): as read from git as it came
 * (lsfiles_read()), every record cut somewhere by a piece's end. */
START_TEST(t_listing_job)
{
	struct lsfiles_job	 j;
	struct lsfiles		 a, b;
	struct git		 g;

	setup();
	sh("i=0; while [ $i -lt 1500 ]; do "
	    "printf %s $i >f$i-$(printf '%040d' $i); i=$((i + 1)); done && "
	    "mkdir -p u && i=0; while [ $i -lt 300 ]; do "
	    ": >u/untracked-$(printf '%060d' $i); i=$((i + 1)); done && "
	    "git add f* && ln -s a.txt l && git add l && "
	    "git update-index --skip-worktree b.txt");
	memset(&g, 0, sizeof(g));
	g.dir = repo;
	g.gitdir = gitdir;
	g.worktree = repo;
	ck_assert_int_eq(lsfiles_read(&a, &g), 0);
	ck_assert_int_eq(lsfiles_start(&j, &g, rd.scratch), 0);
	ck_assert_int_eq(lsfiles_finish(&j, &b), 0);
	ck_assert_uint_gt(a.entries.n, 1500);
	ck_assert_uint_eq(a.untracked.n, 301);
	same_entlist(&a.entries, &b.entries);
	same_strv("untracked", &a.untracked, &b.untracked);
	same_strv("nested", &a.nested, &b.nested);
	same_strv("flagged", &a.flagged, &b.flagged);
	same_strv("gitlinks", &a.gitlinks, &b.gitlinks);
	same_strv("skips", &a.skips, &b.skips);
	same_strv("assumes", &a.assumes, &b.assumes);
	ck_assert_uint_eq(a.skips.n, 1);
	ck_assert_uint_eq(a.maxlen, b.maxlen);
	ck_assert_int_eq(a.sparse, b.sparse);
	lsfiles_free(&a);
	lsfiles_free(&b);
}
END_TEST

static Suite *
proof_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("proof");
	tc = tcase_create("keys");
	tcase_add_test(tc, t_src_key);
	suite_add_tcase(s, tc);
	tc = tcase_create("git");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_none);
	tcase_add_test(tc, t_checked_out_few);
	tcase_add_test(tc, t_carried);
	tcase_add_test(tc, t_damaged);
	tcase_add_test(tc, t_reused_as_is);
	tcase_add_test(tc, t_reused_fix);
	tcase_add_test(tc, t_clock);
	tcase_add_test(tc, t_look);
	tcase_add_test(tc, t_listing_job);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(proof_suite)
