/*
 * journal.c and journal_reclaim.c: the record of every copy, written
 * before the copy exists, read back after a crash; and the reclaiming
 * that removes the copies of runs that are gone and never touches a live
 * run's.
 */
#include "config.h"

#include "unit.h"

#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "fs.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "json.h"
#include "proc.h"
#include "unitfs.h"

/*
 * Under AddressSanitizer, fill all of every new allocation (not just its
 * first 4k) with garbage, so that reading memory nobody wrote shows.  The
 * sanitizer runtime looks this function up by name.
 */
const char	*__asan_default_options(void);

const char *
__asan_default_options(void)
{
	return "max_malloc_fill_size=16777216";
}

/*
 * In a helper child: die with the test, and hold none of its output (a
 * child left running with the TAP pipe open would stall the harness).
 */
static void
helper_child(void)
{
	int	fd;

	(void)prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

/* journal_parse */

START_TEST(t_parse_full)
{
	static const char text[] =
	    "{\"run\":\"0123456789abcdef\",\"pid\":4242,\"start\":987654,"
	    "\"boot\":\"b-o-o-t\",\"top\":\"/tmp/forge-0123456789abcdef\","
	    "\"created\":\"2026-01-01T00:00:00Z\"}\n"
	    "{\"repo\":\"/src/r/.git\"}\n"
	    "{\"repo\":\"/src/r/.git/modules/sub\"}\n"
	    "{\"child\":4300,\"start\":987700}\n"
	    "{\"kept\":\"/tmp/forge-0123456789abcdef/r\"}\n";
	struct journal_entry	e;

	ck_assert_int_eq(journal_parse(text, sizeof(text) - 1, &e), 0);
	ck_assert_str_eq(e.run, "0123456789abcdef");
	ck_assert_int_eq(e.pid, 4242);
	ck_assert_uint_eq(e.start, 987654);
	ck_assert_str_eq(e.boot, "b-o-o-t");
	ck_assert_str_eq(e.top, "/tmp/forge-0123456789abcdef");
	ck_assert_str_eq(e.created, "2026-01-01T00:00:00Z");
	ck_assert_uint_eq(e.repos.n, 2);
	ck_assert_str_eq(e.repos.v[0], "/src/r/.git");
	ck_assert_str_eq(e.repos.v[1], "/src/r/.git/modules/sub");
	ck_assert_int_eq(e.child, 4300);
	ck_assert_uint_eq(e.child_start, 987700);
	ck_assert_str_eq(e.kept, "/tmp/forge-0123456789abcdef/r");
	journal_entry_free(&e);
	ck_assert_ptr_null(e.run);
	ck_assert_uint_eq(e.repos.n, 0);
}
END_TEST

/* What a run killed at any instant leaves: all that is whole is read. */
START_TEST(t_parse_torn)
{
	static const char text[] =
	    "{\"run\":\"r1\",\"pid\":1,\"top\":\"/tmp/forge-r1xxxxxx\"}\n"
	    "garbage\n"
	    "\n"
	    "{\"repo\":\"/a\"}\n"
	    "{\"run\":\"r2\",\"pid\":2,\"top\":\"/elsewhere\"}\n"
	    "{\"repo\":\"/b\"";
	struct journal_entry	e;
	size_t			k;

	ck_assert_int_eq(journal_parse(text, sizeof(text) - 1, &e), 0);
	/* The first record is the one; a second is not taken. */
	ck_assert_str_eq(e.run, "r1");
	ck_assert_int_eq(e.pid, 1);
	ck_assert_str_eq(e.top, "/tmp/forge-r1xxxxxx");
	ck_assert_ptr_null(e.boot);
	ck_assert_ptr_null(e.kept);
	ck_assert_int_eq(e.child, 0);
	ck_assert_uint_eq(e.repos.n, 1);
	ck_assert_str_eq(e.repos.v[0], "/a");
	journal_entry_free(&e);
	/* Every prefix parses or fails cleanly, never reading past it. */
	for (k = 0; k < sizeof(text) - 1; k++) {
		char	*copy = malloc(k + 1);

		ck_assert_ptr_nonnull(copy);
		memcpy(copy, text, k);
		if (journal_parse(copy, k, &e) == 0)
			ck_assert_str_eq(e.run, "r1");
		journal_entry_free(&e);
		free(copy);
	}
}
END_TEST

START_TEST(t_parse_no_run)
{
	struct journal_entry	e;

	ck_assert_int_eq(journal_parse("", 0, &e), -1);
	journal_entry_free(&e);
	ck_assert_int_eq(journal_parse("{\"repo\":\"/a\"}\n", 13, &e), -1);
	journal_entry_free(&e);
	ck_assert_int_eq(journal_parse("{\"run\":7}\n", 10, &e), -1);
	journal_entry_free(&e);
	ck_assert_int_eq(journal_parse("{\"run\":\"x\"", 10, &e), -1);
	journal_entry_free(&e);
}
END_TEST

/* /proc and friends */

START_TEST(t_proc_start_time_self)
{
	unsigned long long	a, b;

	ck_assert_int_eq(proc_start_time(getpid(), &a), 0);
	ck_assert_uint_gt(a, 0);
	ck_assert_int_eq(proc_start_time(getpid(), &b), 0);
	ck_assert_uint_eq(a, b);
	/* Our parent started no later than we did. */
	ck_assert_int_eq(proc_start_time(getppid(), &b), 0);
	ck_assert_uint_le(b, a);
}
END_TEST

/* A command name is the process's to choose: ")" and spaces included. */
START_TEST(t_proc_start_time_odd_name)
{
	unsigned long long	before, after;
	pid_t			pid;
	char			c;
	int			go[2], ready[2], ws;

	ck_assert_int_eq(pipe(go), 0);
	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		helper_child();
		close(go[1]);
		close(ready[0]);
		(void)write(ready[1], "1", 1);
		(void)read(go[0], &c, 1);
		(void)prctl(PR_SET_NAME, "x) R 1 2 3 4 5", 0, 0, 0);
		(void)write(ready[1], "2", 1);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(go[0]);
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(proc_start_time(pid, &before), 0);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(proc_start_time(pid, &after), 0);
	ck_assert_uint_eq(after, before);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	close(go[1]);
	close(ready[0]);
}
END_TEST

START_TEST(t_proc_start_time_dead)
{
	unsigned long long	t = 12345;
	pid_t			pid;
	int			ws;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	ck_assert_int_eq(proc_start_time(pid, &t), -1);
	ck_assert_int_eq(proc_start_time(0, &t), -1);
	ck_assert_int_eq(proc_start_time(-1, &t), -1);
	ck_assert_uint_eq(t, 12345);
}
END_TEST

START_TEST(t_boot_id)
{
	const char	*id;
	char		*text;
	size_t		 i;

	id = proc_boot_id();
	ck_assert_ptr_nonnull(id);
	if (access("/proc/sys/kernel/random/boot_id", R_OK) != 0) {
		ck_assert_str_eq(id, "");
		return;
	}
	/* A UUID, without the newline the file has. */
	ck_assert_uint_eq(strlen(id), 36);
	for (i = 0; i < 36; i++) {
		if (i == 8 || i == 13 || i == 18 || i == 23)
			ck_assert_int_eq(id[i], '-');
		else
			ck_assert(isxdigit((unsigned char)id[i]));
	}
	text = unitfs_read("/proc/sys/kernel/random/boot_id", NULL);
	ck_assert(strncmp(text, id, 36) == 0);
	free(text);
	ck_assert_ptr_eq(proc_boot_id(), id);
}
END_TEST

START_TEST(t_run_id)
{
	char	a[32], b[32], small[8];
	size_t	i;

	journal_new_run_id(a, sizeof(a));
	journal_new_run_id(b, sizeof(b));
	ck_assert_uint_eq(strlen(a), 16);
	for (i = 0; i < 16; i++)
		ck_assert_msg(isdigit((unsigned char)a[i]) ||
		    (a[i] >= 'a' && a[i] <= 'f'), "not lowercase hex: %s", a);
	ck_assert_str_ne(a, b);
	memset(small, 'Z', sizeof(small));
	journal_new_run_id(small, 5);
	ck_assert_uint_eq(strlen(small), 4);
}
END_TEST

/* Writing a record */

static char *
record_path(const char *common, const char *run)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/forge/copies/%s", common, run),
	    -1);
	return p;
}

START_TEST(t_journal_write)
{
	struct journal_entry	 e;
	struct journal		 j, j2;
	unsigned long long	 start;
	size_t			 len;
	pid_t			 child;
	char			*common, *p, *text, run[32];
	int			 ws;

	common = unitfs_dir("common");
	journal_new_run_id(run, sizeof(run));
	ck_assert_int_eq(journal_open(&j, common, run, "/tmp/forge-top"), 0);
	ck_assert_int_ge(j.fd, 0);
	ck_assert(fcntl(j.fd, F_GETFD) & FD_CLOEXEC);
	p = record_path(common, run);
	ck_assert_str_eq(j.path, p);
	/* The same run twice is refused: a record is never shared. */
	ck_assert_int_eq(journal_open(&j2, common, run, "/tmp/forge-x"), -1);
	ck_assert_int_eq(journal_note_repo(&j, "/src/.git"), 0);
	child = fork();
	ck_assert_int_ne(child, -1);
	if (child == 0) {
		helper_child();
		pause();
		_exit(0);
	}
	ck_assert_int_eq(journal_note_child(&j, child), 0);
	ck_assert_int_eq(journal_note_kept(&j, "/tmp/forge-top/r"), 0);
	text = unitfs_read(p, &len);
	ck_assert_int_eq(text[len - 1], '\n');
	ck_assert_int_eq(journal_parse(text, len, &e), 0);
	ck_assert_str_eq(e.run, run);
	ck_assert_int_eq(e.pid, getpid());
	ck_assert_int_eq(proc_start_time(getpid(), &start), 0);
	ck_assert_uint_eq(e.start, start);
	ck_assert_str_eq(e.boot, proc_boot_id());
	ck_assert_str_eq(e.top, "/tmp/forge-top");
	ck_assert_ptr_nonnull(e.created);
	ck_assert_uint_eq(e.repos.n, 1);
	ck_assert_str_eq(e.repos.v[0], "/src/.git");
	ck_assert_int_eq(e.child, child);
	ck_assert_int_eq(proc_start_time(child, &start), 0);
	ck_assert_uint_eq(e.child_start, start);
	ck_assert_str_eq(e.kept, "/tmp/forge-top/r");
	journal_entry_free(&e);
	free(text);
	kill(child, SIGKILL);
	waitpid(child, &ws, 0);
	/* Closing without removing keeps the record; removing drops it. */
	journal_close(&j, 0);
	ck_assert(unitfs_exists(p));
	ck_assert_int_eq(j.fd, -1);
	ck_assert_ptr_null(j.path);
	free(p);
	journal_new_run_id(run, sizeof(run));
	ck_assert_int_eq(journal_open(&j, common, run, "/tmp/forge-top"), 0);
	p = record_path(common, run);
	journal_close(&j, 1);
	ck_assert(!unitfs_exists(p));
	/* Notes on a journal that is not open are quietly nothing. */
	ck_assert_int_eq(journal_note_repo(&j, "/x"), 0);
	free(p);
	free(common);
}
END_TEST

/* journal_reclaim */

/* A copy as forge makes them: $TMPDIR/forge-<id>/<name>/... */
static char *
make_copy(const char *where)
{
	char	*top, *p, run[32];

	journal_new_run_id(run, sizeof(run));
	ck_assert_int_ne(asprintf(&top, "%s/forge-%s", where, run), -1);
	ck_assert_int_eq(mkdir(top, 0700), 0);
	ck_assert_int_ne(asprintf(&p, "%s/r", top), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/r/file", top), -1);
	unitfs_write(p, "copied\n", 0644);
	free(p);
	return top;
}

/* What rundir leaves in a run's directory: the run's id, which proves
 * the directory is that run's own. */
static void
mark_copy(const char *top, const char *run)
{
	char	*p;

	ck_assert_int_ne(asprintf(&p, "%s/%s", top, JOURNAL_SCRATCH), -1);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/%s/%s", top, JOURNAL_SCRATCH,
	    JOURNAL_MARK), -1);
	unitfs_write(p, run, 0600);
	free(p);
}

/* Write a record by hand, as a run that is gone would have left it. */
static char *
write_record(const char *common, const char *name, const char *text)
{
	char	*dir, *p;

	ck_assert_int_ne(asprintf(&dir, "%s/forge/copies", common), -1);
	p = unitfs_path(dir, name);
	ck_assert_int_eq(fs_mkdirs(dir, 0755), 0);
	unitfs_write(p, text, 0644);
	free(dir);
	return p;
}

static char *
first_line(const char *run, long pid, unsigned long long start,
    const char *boot, const char *top)
{
	struct buf	b = BUF_INIT;
	struct json	j;

	json_init(&j, &b);
	json_open(&j, '{');
	json_key(&j, "run");
	json_str(&j, run);
	json_key(&j, "pid");
	json_int(&j, pid);
	json_key(&j, "start");
	json_int(&j, (long long)start);
	json_key(&j, "boot");
	json_str(&j, boot);
	json_key(&j, "top");
	json_str(&j, top);
	json_close(&j, '}');
	buf_addc(&b, '\n');
	return buf_detach(&b);
}

/* A pid that was ours and is gone. */
static pid_t
dead_pid(void)
{
	pid_t	pid;
	int	ws;

	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0)
		_exit(0);
	ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
	return pid;
}

static int
reclaim(const char *common, int flags)
{
	struct reclaim	rc;
	int		n;

	(void)journal_reclaim(common, flags, 0, &rc);
	n = (int)rc.n;
	journal_reclaim_free(&rc);
	return n;
}

/*
 * One record, as a run that is gone or not would have left it, its copy
 * beside it: whose pid (one that is dead, or this process), with what
 * start time and boot id.  reclaim with no flags must remove what it
 * says, then nothing more; with JOURNAL_KEPT, the rest of what it says.
 */
enum owner { DEAD, SELF };
enum started { AT_ONE, AS_SELF, AFTER_SELF };

static const struct reclaim_case {
	const char	*run;
	enum owner	 owner;
	enum started	 started;
	int		 other_boot;	/* a boot id that is not this one's */
	int		 kept;		/* the record says the copy was kept */
	int		 plain;		/* what reclaim(common, 0) removes */
	int		 with_kept;	/* what JOURNAL_KEPT then removes */
} reclaim_cases[] = {
	/* The run is dead: its copy goes, once. */
	{ "deadrun", DEAD, AT_ONE, 0, 0, 1, 0 },
	/* Even unlocked (a lost lock, a copied record), a live owner
	 * counts: the pid with its start time. */
	{ "mine", SELF, AS_SELF, 0, 0, 0, 0 },
	/* Our pid, recycled: another start time is another process. */
	{ "recycled", SELF, AFTER_SELF, 0, 0, 1, 0 },
	/* A record from before a reboot: its pid means nothing now. */
	{ "oldboot", SELF, AS_SELF, 1, 0, 1, 0 },
	/* A copy the run kept stays, unless JOURNAL_KEPT. */
	{ "keptrun", DEAD, AT_ONE, 0, 1, 0, 1 },
};

START_TEST(t_reclaim_one)
{
	const struct reclaim_case	*c = &reclaim_cases[_i];
	struct buf			 b = BUF_INIT;
	unsigned long long		 start = 1;
	pid_t				 pid;
	char				*common, *top, *rec, *line;

	if (c->other_boot && *proc_boot_id() == '\0')
		return;		/* no boot id here: nothing to compare */
	common = unitfs_dir("common");
	top = make_copy(unitfs_base());
	pid = c->owner == DEAD ? dead_pid() : getpid();
	if (c->started != AT_ONE)
		ck_assert_int_eq(proc_start_time(getpid(), &start), 0);
	if (c->started == AFTER_SELF)
		start++;
	mark_copy(top, c->run);
	line = first_line(c->run, pid, start, c->other_boot ?
	    "00000000-0000-0000-0000-000000000000" : proc_boot_id(), top);
	buf_adds(&b, line);
	if (c->kept)
		buf_addf(&b, "{\"kept\":\"%s/r\"}\n", top);
	rec = write_record(common, c->run, b.data);
	ck_assert_int_eq(reclaim(common, 0), c->plain);
	ck_assert(unitfs_exists(top) == !c->plain);
	ck_assert(unitfs_exists(rec) == !c->plain);
	/* Nothing more to do the second time. */
	ck_assert_int_eq(reclaim(common, 0), 0);
	ck_assert_int_eq(reclaim(common, JOURNAL_KEPT), c->with_kept);
	ck_assert(unitfs_exists(top) == !(c->plain || c->with_kept));
	ck_assert(unitfs_exists(rec) == !(c->plain || c->with_kept));
	/* No journal directory at all: nothing, no error. */
	ck_assert_int_eq(reclaim("/nonexistent-forge-unit", 0), 0);
	buf_free(&b);
	free(line);
	free(rec);
	free(top);
	free(common);
}
END_TEST

/* The run is alive and holds its record: its copy is never touched. */
START_TEST(t_reclaim_live_run)
{
	struct journal	 j;
	char		*common, *top, run[32];

	common = unitfs_dir("common");
	top = make_copy(unitfs_base());
	journal_new_run_id(run, sizeof(run));
	ck_assert_int_eq(journal_open(&j, common, run, top), 0);
	ck_assert_int_eq(reclaim(common, 0), 0);
	ck_assert(unitfs_exists(top));
	ck_assert(unitfs_exists(j.path));
	ck_assert_int_eq(reclaim(common, JOURNAL_KEPT), 0);
	ck_assert(unitfs_exists(top));
	journal_close(&j, 1);
	free(top);
	free(common);
}
END_TEST

/* A dry run says what would go, and removes nothing; then it goes, and
 * the report says so (forge gc prints it). */
START_TEST(t_reclaim_dry_run)
{
	struct reclaim	 rc;
	char		*common, *top, *rec, *line;

	common = unitfs_dir("common");
	top = make_copy(unitfs_base());
	mark_copy(top, "dry");
	line = first_line("dry", dead_pid(), 1, proc_boot_id(), top);
	rec = write_record(common, "dry", line);
	ck_assert_int_eq(journal_reclaim(common, JOURNAL_DRY_RUN, 0, &rc), 0);
	ck_assert_uint_eq(rc.n, 1);
	ck_assert_str_eq(rc.v[0].top, top);
	ck_assert_int_eq(rc.v[0].kept, 0);
	ck_assert(unitfs_exists(top));
	ck_assert(unitfs_exists(rec));
	journal_reclaim_free(&rc);
	ck_assert_int_eq(journal_reclaim(common, 0, 0, &rc), 0);
	ck_assert_uint_eq(rc.n, 1);
	ck_assert_str_eq(rc.v[0].top, top);
	ck_assert_uint_eq(rc.left.n, 0);
	ck_assert(!unitfs_exists(top));
	ck_assert(!unitfs_exists(rec));
	journal_reclaim_free(&rc);
	free(line);
	free(rec);
	free(top);
	free(common);
}
END_TEST

/* A record could be edited by hand, or be garbage: only a directory
 * named like forge's own, reached by an absolute path, is ever removed. */
START_TEST(t_reclaim_refuses_odd_tops)
{
	char	*common, *victim, *rec, *line, *tops[8], *made[4], *cwd;
	size_t	 i;

	common = unitfs_dir("common");
	victim = unitfs_dir("victim");
	/* Each would be removed if the top were taken as it stands. */
	ck_assert_int_ne(asprintf(&made[0], "%s/forge-ab", victim), -1);
	ck_assert_int_ne(asprintf(&made[1], "%s/forge-0123456789abcdef",
	    victim), -1);
	ck_assert_int_ne(asprintf(&made[2], "%s/forge-fedcba9876543210",
	    unitfs_base()), -1);
	ck_assert_int_ne(asprintf(&made[3], "%s/forge-link567890abcd",
	    unitfs_base()), -1);
	ck_assert_int_eq(mkdir(made[0], 0700), 0);
	ck_assert_int_eq(mkdir(made[1], 0700), 0);
	ck_assert_int_eq(mkdir(made[2], 0700), 0);
	ck_assert_int_eq(symlink(victim, made[3]), 0);
	tops[0] = strdup(victim);			/* not forge's name */
	tops[1] = strdup(made[0]);			/* too short */
	ck_assert_int_ne(asprintf(&tops[2], "%s/../%s/forge-0123456789abcdef",
	    victim, fs_basename(victim)), -1);		/* a way up */
	tops[3] = strdup("forge-0123456789abcdef");	/* relative */
	tops[4] = strdup(made[3]);			/* a stale link */
	tops[5] = strdup("/");
	tops[6] = strdup("");
	tops[7] = NULL;
	/* The relative one would be below the current directory. */
	cwd = getcwd(NULL, 0);
	ck_assert_int_eq(chdir(victim), 0);
	for (i = 0; i < 8; i++) {
		char	name[16];

		snprintf(name, sizeof(name), "odd%zu", i);
		line = first_line(name, dead_pid(), 1, proc_boot_id(), tops[i]);
		rec = write_record(common, name, line);
		if (i == 4) {
			/* A stale symlink where the copy was: the link
			 * goes, never what it points to. */
			ck_assert_int_eq(reclaim(common, 0), 1);
			ck_assert(!unitfs_exists(rec));
			ck_assert(!unitfs_exists(made[3]));
			ck_assert(unitfs_exists(made[1]));
			ck_assert_int_eq(symlink(victim, made[3]), 0);
		} else {
			ck_assert_int_eq(reclaim(common, 0), 0);
			ck_assert_msg(unitfs_exists(rec), "record %zu removed",
			    i);
		}
		ck_assert(unitfs_exists(made[0]));
		ck_assert(unitfs_exists(made[1]));
		ck_assert(unitfs_exists(made[2]));
		ck_assert(unitfs_exists(made[3]));
		unlink(rec);
		free(rec);
		free(line);
		free(tops[i]);
	}
	/* The control: a sane top next to them does go. */
	line = first_line("sane", dead_pid(), 1, proc_boot_id(), made[2]);
	rec = write_record(common, "sane", line);
	ck_assert_int_eq(reclaim(common, 0), 1);
	ck_assert(!unitfs_exists(made[2]));
	ck_assert_int_eq(chdir(cwd), 0);
	for (i = 0; i < 4; i++)
		free(made[i]);
	free(cwd);
	free(line);
	free(rec);
	free(victim);
	free(common);
}
END_TEST

START_TEST(t_reclaim_odd_records)
{
	struct timespec	 old[2];
	char		*common, *top, *rec, *other, *line, *fresh;

	common = unitfs_dir("common");
	/* Created and never written: a run starting this very instant,
	 * which has yet to lock it, or one that died at once.  New: left
	 * alone; a minute old: removed. */
	fresh = write_record(common, "freshrun", "");
	rec = write_record(common, "emptyrun", "");
	old[0].tv_sec = old[1].tv_sec = time(NULL) - 120;
	old[0].tv_nsec = old[1].tv_nsec = 0;
	ck_assert_int_eq(utimensat(AT_FDCWD, rec, old, 0), 0);
	/* Not a record name: left alone. */
	top = make_copy(unitfs_base());
	line = first_line("x", dead_pid(), 1, proc_boot_id(), top);
	other = write_record(common, "x.tmp", line);
	ck_assert_int_eq(reclaim(common, 0), 0);
	ck_assert(!unitfs_exists(rec));
	ck_assert(unitfs_exists(fresh));
	ck_assert(unitfs_exists(other));
	ck_assert(unitfs_exists(top));
	free(line);
	free(fresh);
	free(other);
	free(rec);
	free(top);
	free(common);
}
END_TEST

/* The command of a dead forge is still running in its copy: it goes,
 * with everything in its process group, before the copy does. */
START_TEST(t_reclaim_kills_orphan)
{
	unsigned long long	 start;
	struct buf		 b = BUF_INIT;
	pid_t			 keeper, orphan;
	char			*common, *top, *rec, *line;
	int			 p[2], ws;

	common = unitfs_dir("common");
	top = make_copy(unitfs_base());
	/* A keeper reaps the orphan, as init would, and tells how it died. */
	ck_assert_int_eq(pipe(p), 0);
	keeper = fork();
	ck_assert_int_ne(keeper, -1);
	if (keeper == 0) {
		pid_t	w;
		int	st = 0;

		helper_child();
		/* The orphan's own child comes to us when it dies. */
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
		close(p[0]);
		if ((orphan = fork()) == 0) {
			close(p[1]);
			helper_child();
			setpgid(0, 0);
			execl("/bin/sh", "sh", "-c", "sleep 30 & wait", NULL);
			_exit(127);
		}
		(void)write(p[1], &orphan, sizeof(orphan));
		close(p[1]);
		while ((w = waitpid(-1, &ws, 0)) != -1 || errno == EINTR)
			if (w == orphan)
				st = ws;
		_exit(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL ? 0 : 2);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &orphan, sizeof(orphan)),
	    (ssize_t)sizeof(orphan));
	close(p[0]);
	/* Wait until it leads its group and has exec'd. */
	while (getpgid(orphan) != orphan)
		usleep(1000);
	usleep(50000);
	ck_assert_int_eq(proc_start_time(orphan, &start), 0);
	mark_copy(top, "orphaned");
	line = first_line("orphaned", dead_pid(), 1, proc_boot_id(), top);
	buf_adds(&b, line);
	buf_addf(&b, "{\"child\":%ld,\"start\":%llu}\n", (long)orphan, start);
	rec = write_record(common, "orphaned", b.data);
	ck_assert_int_eq(reclaim(common, 0), 1);
	ck_assert(!unitfs_exists(top));
	ck_assert_int_eq(waitpid(keeper, &ws, 0), keeper);
	ck_assert_msg(WIFEXITED(ws) && WEXITSTATUS(ws) == 0,
	    "the orphan was not killed");
	ck_assert_int_eq(kill(-orphan, 0), -1);
	ck_assert_int_eq(errno, ESRCH);
	buf_free(&b);
	free(line);
	free(rec);
	free(top);
	free(common);
}
END_TEST

/* A child pid that now belongs to someone else is not killed. */
START_TEST(t_reclaim_spares_recycled_child)
{
	unsigned long long	 start;
	struct buf		 b = BUF_INIT;
	pid_t			 bystander;
	char			*common, *top, *rec, *line;
	int			 ws;

	common = unitfs_dir("common");
	top = make_copy(unitfs_base());
	bystander = fork();
	ck_assert_int_ne(bystander, -1);
	if (bystander == 0) {
		helper_child();
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	while (getpgid(bystander) != bystander)
		usleep(1000);
	ck_assert_int_eq(proc_start_time(bystander, &start), 0);
	/* The run's own directory: only the start time can save it. */
	mark_copy(top, "other");
	line = first_line("other", dead_pid(), 1, proc_boot_id(), top);
	buf_adds(&b, line);
	buf_addf(&b, "{\"child\":%ld,\"start\":%llu}\n", (long)bystander,
	    start + 1);
	rec = write_record(common, "other", b.data);
	ck_assert_int_eq(reclaim(common, 0), 1);
	ck_assert_int_eq(waitpid(bystander, &ws, WNOHANG), 0);
	ck_assert_int_eq(kill(bystander, SIGKILL), 0);
	ck_assert_int_eq(waitpid(bystander, &ws, 0), bystander);
	buf_free(&b);
	free(line);
	free(rec);
	free(top);
	free(common);
}
END_TEST

/* Its worktree registrations go with the copy; others' stay. */
START_TEST(t_reclaim_registrations)
{
	struct buf	 b = BUF_INIT;
	char		*common, *repo, *top, *rec, *line, *p;

	common = unitfs_dir("common");
	repo = unitfs_dir("repo");
	top = make_copy(unitfs_base());
	ck_assert_int_ne(asprintf(&p, "%s/worktrees", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	/* Ours, by its gitdir file. */
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r/gitdir", repo), -1);
	buf_addf(&b, "%s/r/.git\n", top);
	unitfs_write(p, b.data, 0644);
	free(p);
	/* Ours, killed before gitdir was written: by its lock reason. */
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r1", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r1/locked", repo), -1);
	unitfs_write(p, "forge run regrun pid 1: an ephemeral copy\n", 0644);
	free(p);
	/* Someone else's: a path that merely starts like ours. */
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/theirs", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/theirs/gitdir", repo),
	    -1);
	buf_reset(&b);
	buf_addf(&b, "%sx/r/.git\n", top);
	unitfs_write(p, b.data, 0644);
	free(p);
	/* Someone else's, locked without a reason (an empty file), whose
	 * gitdir is missing. */
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/lockedonly", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/lockedonly/locked", repo),
	    -1);
	unitfs_write(p, "", 0644);
	free(p);
	mark_copy(top, "regrun");
	line = first_line("regrun", dead_pid(), 1, proc_boot_id(), top);
	buf_reset(&b);
	buf_adds(&b, line);
	buf_addf(&b, "{\"repo\":\"%s\"}\n", repo);
	rec = write_record(common, "regrun", b.data);
	ck_assert_int_eq(reclaim(common, 0), 1);
	ck_assert(!unitfs_exists(top));
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r", repo), -1);
	ck_assert(!unitfs_exists(p));
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/r1", repo), -1);
	ck_assert(!unitfs_exists(p));
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/theirs/gitdir", repo),
	    -1);
	ck_assert(unitfs_exists(p));
	free(p);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees/lockedonly/locked", repo),
	    -1);
	ck_assert(unitfs_exists(p));
	free(p);
	buf_free(&b);
	free(line);
	free(rec);
	free(top);
	free(repo);
	free(common);
}
END_TEST

/* One registration dropped for a copy made again at its path: the run's
 * whose working tree is that copy, and no other. */
static const struct {
	const char	*name;
	const char	*gitdir;	/* below the copies' directory */
	const char	*locked;
	int		 goes;
} drop_regs[] = {
	{ "ours",	"top/lib/sub/.git",	"forge run droprun pid 1: x", 1 },
	{ "other",	"top/lib/sub2/.git",	"forge run droprun pid 1: x", 0 },
	{ "deeper",	"top/lib/sub/x/.git",	"forge run droprun pid 1: x", 0 },
	{ "notours",	"top/lib/sub/.git",	"forge run otherrun pid 1: x", 0 },
	{ "unlocked",	"top/lib/sub/.git",	NULL,			0 },
};

START_TEST(t_drop_registration)
{
	struct buf	 b = BUF_INIT;
	char		*repo, *base, *copy, *p;
	size_t		 i;

	repo = unitfs_dir("droprepo");
	base = unitfs_dir("dropcopies");
	ck_assert_int_ne(asprintf(&copy, "%s/top/lib/sub", base), -1);
	/* No registrations at all: nothing to do. */
	ck_assert_int_eq(journal_reclaim_registration(repo, "droprun", copy),
	    0);
	ck_assert_int_ne(asprintf(&p, "%s/worktrees", repo), -1);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	free(p);
	for (i = 0; i < sizeof(drop_regs) / sizeof(drop_regs[0]); i++) {
		ck_assert_int_ne(asprintf(&p, "%s/worktrees/%s", repo,
		    drop_regs[i].name), -1);
		ck_assert_int_eq(mkdir(p, 0755), 0);
		free(p);
		ck_assert_int_ne(asprintf(&p, "%s/worktrees/%s/gitdir", repo,
		    drop_regs[i].name), -1);
		buf_reset(&b);
		buf_addf(&b, "%s/%s\n", base, drop_regs[i].gitdir);
		unitfs_write(p, b.data, 0644);
		free(p);
		if (drop_regs[i].locked == NULL)
			continue;
		ck_assert_int_ne(asprintf(&p, "%s/worktrees/%s/locked", repo,
		    drop_regs[i].name), -1);
		unitfs_write(p, drop_regs[i].locked, 0644);
		free(p);
	}
	ck_assert_int_eq(journal_reclaim_registration(repo, "droprun", copy),
	    0);
	for (i = 0; i < sizeof(drop_regs) / sizeof(drop_regs[0]); i++) {
		ck_assert_int_ne(asprintf(&p, "%s/worktrees/%s", repo,
		    drop_regs[i].name), -1);
		ck_assert_msg(unitfs_exists(p) == !drop_regs[i].goes,
		    "%s: %s", drop_regs[i].name, drop_regs[i].goes ?
		    "left in place" : "removed");
		free(p);
	}
	buf_free(&b);
	free(copy);
	free(base);
	free(repo);
}
END_TEST

static Suite *
journal_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("journal");
	tc = tcase_create("parse");
	tcase_add_test(tc, t_parse_full);
	tcase_add_test(tc, t_parse_torn);
	tcase_add_test(tc, t_parse_no_run);
	tcase_add_test(tc, t_proc_start_time_self);
	tcase_add_test(tc, t_proc_start_time_odd_name);
	tcase_add_test(tc, t_proc_start_time_dead);
	tcase_add_test(tc, t_boot_id);
	tcase_add_test(tc, t_run_id);
	suite_add_tcase(s, tc);

	tc = tcase_create("record");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_journal_write);
	tcase_add_loop_test(tc, t_reclaim_one, 0,
	    (int)(sizeof(reclaim_cases) / sizeof(reclaim_cases[0])));
	tcase_add_test(tc, t_reclaim_live_run);
	tcase_add_test(tc, t_reclaim_dry_run);
	tcase_add_test(tc, t_reclaim_refuses_odd_tops);
	tcase_add_test(tc, t_reclaim_odd_records);
	tcase_add_test(tc, t_reclaim_kills_orphan);
	tcase_add_test(tc, t_reclaim_spares_recycled_child);
	tcase_add_test(tc, t_reclaim_registrations);
	tcase_add_test(tc, t_drop_registration);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(journal_suite)
