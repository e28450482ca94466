/*
 * spawn.c and sig.c: starting programs as a shell would, the fd contract,
 * moving data between pipes, and time limits that leave nothing of the
 * process group running.
 */
#include "config.h"

#include "unit.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "unitfs.h"

extern char	**environ;

/* Start argv with flags, stdin from /dev/null, output kept in out and
 * err; wait with lim; the exit.  Without out and err, the output goes to
 * /dev/null: a time limit is enforced only once output is done. */
static struct spawn_exit
run(char *const *argv, int flags, const char *dir,
    const struct spawn_limit *lim, struct buf *out, struct buf *err)
{
	struct spawn		sp = SPAWN_INIT;
	struct spawn_stream	st[2];
	struct spawn_exit	ex;
	struct buf		junk = BUF_INIT;

	sp.argv = argv;
	sp.dir = dir;
	sp.flags = flags;
	sp.in = SPAWN_NULL;
	sp.out = out != NULL || err != NULL ? SPAWN_PIPE : SPAWN_NULL;
	sp.err = sp.out;
	ck_assert_msg(spawn_start(&sp) == 0, "spawn %s: %s", argv[0],
	    strerror(errno));
	ck_assert_int_gt(sp.pid, 0);
	if (out == NULL && err == NULL) {
		ck_assert_int_eq(spawn_wait(&sp, lim, &ex), 0);
		ck_assert_int_eq(sp.pid, -1);
		return ex;
	}
	memset(st, 0, sizeof(st));
	st[0].fd = sp.out;
	st[0].buf = out != NULL ? out : &junk;
	st[0].relay_to = out != NULL ? -1 : -2;
	st[1].fd = sp.err;
	st[1].buf = err != NULL ? err : &junk;
	st[1].relay_to = err != NULL ? -1 : -2;
	ck_assert_int_eq(spawn_io(st, 2, NULL), 0);
	ck_assert_int_eq(st[0].fd, -1);
	ck_assert_int_eq(st[1].fd, -1);
	ck_assert_int_eq(spawn_wait(&sp, lim, &ex), 0);
	ck_assert_int_eq(sp.pid, -1);
	buf_free(&junk);
	return ex;
}

static int
sh_status(const char *script)
{
	char *const		argv[] = { "sh", "-c", (char *)script, NULL };
	struct spawn_exit	ex;

	ex = run(argv, 0, NULL, NULL, NULL, NULL);
	return ex.status;
}

/* No child of ours is left, running or unreaped. */
static void
no_children(void)
{
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

/* Is pid gone for good (not even a zombie)? */
static int
gone(pid_t pid)
{
	return kill(pid, 0) == -1 && errno == ESRCH;
}

static pid_t
read_pid(const char *file)
{
	char	*text;
	long	 pid;

	text = unitfs_read(file, NULL);
	pid = strtol(text, NULL, 10);
	free(text);
	ck_assert_int_gt(pid, 1);
	return (pid_t)pid;
}

/*
 * A shell script that starts straggler (a command) in the background with
 * SIGTERM ignored when ignore is set, waits until it runs, writes its pid
 * to pidfile, then goes on with rest.  The wait matters: a signal that
 * came before the trap would make the test prove nothing.
 */
static char *
straggler_script(const char *dir, int ignore, const char *rest)
{
	char	*s;

	ck_assert_int_ne(asprintf(&s,
	    "cd '%s' || exit 99; "
	    "(%s : >ready; exec sleep 30) >/dev/null 2>&1 & "
	    "while [ ! -e ready ]; do sleep 0.01; done; "
	    "echo $! >pid; %s", dir, ignore ? "trap '' TERM;" : "", rest),
	    -1);
	return s;
}

/* spawn_status */

START_TEST(t_status)
{
	static const struct {
		int	how;		/* >= 0: exit code; < 0: -signal */
		int	want;
	} cases[] = {
		{ 0, 0 }, { 3, 3 }, { 125, 125 }, { 255, 255 },
		{ -SIGTERM, 128 + SIGTERM }, { -SIGKILL, 128 + SIGKILL },
		{ -SIGINT, 128 + SIGINT }, { -SIGSEGV, 128 + SIGSEGV },
	};
	struct rlimit	no_core = { 0, 0 };
	size_t		i;
	pid_t		pid;
	int		ws;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		pid = fork();
		ck_assert_int_ne(pid, -1);
		if (pid == 0) {
			if (cases[i].how >= 0)
				_exit(cases[i].how);
			(void)setrlimit(RLIMIT_CORE, &no_core);
			signal(-cases[i].how, SIG_DFL);
			raise(-cases[i].how);
			_exit(99);
		}
		ck_assert_int_eq(waitpid(pid, &ws, 0), pid);
		ck_assert_int_eq(spawn_status(ws), cases[i].want);
	}
	/* A stopped child is neither: forge's own status. */
	pid = fork();
	if (pid == 0) {
		raise(SIGSTOP);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &ws, WUNTRACED), pid);
	ck_assert(WIFSTOPPED(ws));
	ck_assert_int_eq(spawn_status(ws), 125);
	kill(pid, SIGKILL);
	waitpid(pid, &ws, 0);
}
END_TEST

/* spawn_env */

static size_t
count(char **v)
{
	size_t	n = 0;

	while (v[n] != NULL)
		n++;
	return n;
}

START_TEST(t_env)
{
	char	*base[] = { "A=1", "B=2", "MALFORMED", "C=3", "AB=4",
	    "E=5", "EMPTY=", NULL };
	char	*changes[] = { "B", "C=30", "D=4", "D=40", "E", "A=x=y",
	    NULL };
	char	**env;

	env = spawn_env(base, changes);
	ck_assert_uint_eq(count(env), 5);
	/* What is kept is borrowed, in order; changes come after. */
	ck_assert_ptr_eq(env[0], base[4]);
	ck_assert_str_eq(env[0], "AB=4");
	ck_assert_str_eq(env[1], "EMPTY=");
	ck_assert_str_eq(env[2], "C=30");
	ck_assert_str_eq(env[3], "D=40");
	ck_assert_str_eq(env[4], "A=x=y");
	free(env);
	/* Unset, then set: set.  Set, then unset: unset. */
	{
		char	*c1[] = { "X", "X=1", NULL };
		char	*c2[] = { "X=1", "X", NULL };
		char	*b1[] = { "X=0", "Y=y", NULL };

		env = spawn_env(b1, c1);
		ck_assert_uint_eq(count(env), 2);
		ck_assert_str_eq(env[0], "Y=y");
		ck_assert_str_eq(env[1], "X=1");
		free(env);
		env = spawn_env(b1, c2);
		ck_assert_uint_eq(count(env), 1);
		ck_assert_str_eq(env[0], "Y=y");
		free(env);
	}
	/* No base, no changes. */
	env = spawn_env(NULL, changes);
	ck_assert_uint_eq(count(env), 3);
	free(env);
	env = spawn_env(base, NULL);
	ck_assert_uint_eq(count(env), 6);	/* MALFORMED is not passed on */
	free(env);
	env = spawn_env(NULL, NULL);
	ck_assert_ptr_null(env[0]);
	free(env);
}
END_TEST

/* The environment the child really gets. */
START_TEST(t_env_child)
{
	char *const	 argv[] = { "sh", "-c",
	    "echo \"${FORGE_UNIT_SET-unset}|${FORGE_UNIT_GONE-unset}\"", NULL };
	char *const	 env[] = { "FORGE_UNIT_SET=yes", "FORGE_UNIT_GONE",
	    NULL };
	struct spawn	 sp = SPAWN_INIT;
	struct spawn_stream st;
	struct spawn_exit ex;
	struct buf	 out = BUF_INIT;

	sig_init();
	ck_assert_int_eq(setenv("FORGE_UNIT_GONE", "here", 1), 0);
	sp.argv = argv;
	sp.env = env;
	sp.out = SPAWN_PIPE;
	sp.in = SPAWN_NULL;
	ck_assert_int_eq(spawn_start(&sp), 0);
	memset(&st, 0, sizeof(st));
	st.fd = sp.out;
	st.buf = &out;
	st.relay_to = -1;
	ck_assert_int_eq(spawn_io(&st, 1, NULL), 0);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_str_eq(out.data, "yes|unset\n");
	/* Ours is untouched. */
	ck_assert_str_eq(getenv("FORGE_UNIT_GONE"), "here");
	ck_assert_ptr_null(getenv("FORGE_UNIT_SET"));
	buf_free(&out);
}
END_TEST

/* spawn_which */

START_TEST(t_which)
{
	char	*d, *b1, *b2, *b3, *p, *pathvar, *cwd, *w;

	d = unitfs_dir("which");
	b1 = unitfs_path(d, "bin1");
	b2 = unitfs_path(d, "bin2");
	b3 = unitfs_path(d, "bin3");
	ck_assert_int_eq(mkdir(b1, 0755), 0);
	ck_assert_int_eq(mkdir(b2, 0755), 0);
	ck_assert_int_eq(mkdir(b3, 0755), 0);
	p = unitfs_path(b1, "prog");
	unitfs_write(p, "#!/bin/sh\n", 0755);
	free(p);
	p = unitfs_path(b2, "prog");
	unitfs_write(p, "#!/bin/sh\n", 0644);
	free(p);
	p = unitfs_path(b3, "prog");
	ck_assert_int_eq(mkdir(p, 0755), 0);	/* a directory: skipped */
	free(p);
	p = unitfs_path(b2, "noexec");
	unitfs_write(p, "#!/bin/sh\n", 0644);
	free(p);

	/* The first executable one, past those that are not. */
	ck_assert_int_ne(asprintf(&pathvar, "%s:%s:%s", b3, b2, b1), -1);
	w = spawn_which("prog", pathvar);
	p = unitfs_path(b1, "prog");
	ck_assert_pstr_eq(w, p);
	free(p);
	free(w);
	free(pathvar);
	/* Present but not executable: EACCES, as a shell says. */
	errno = 0;
	ck_assert_ptr_null(spawn_which("noexec", b2));
	ck_assert_int_eq(errno, EACCES);
	errno = 0;
	ck_assert_ptr_null(spawn_which("prog", b2));
	ck_assert_int_eq(errno, EACCES);
	errno = 0;
	ck_assert_ptr_null(spawn_which("prog", b3));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(spawn_which("no-such-forge-unit-prog", b1));
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_ptr_null(spawn_which("", b1));
	ck_assert_int_eq(errno, ENOENT);
	/* A name with a slash is not looked up. */
	w = spawn_which("./some/where", b1);
	ck_assert_str_eq(w, "./some/where");
	free(w);
	w = spawn_which("/no/such/file", b1);
	ck_assert_str_eq(w, "/no/such/file");
	free(w);
	/* An empty element of PATH is the current directory. */
	cwd = getcwd(NULL, 0);
	ck_assert_int_eq(chdir(b1), 0);
	ck_assert_int_ne(asprintf(&pathvar, "%s::", b3), -1);
	w = spawn_which("prog", pathvar);
	ck_assert_str_eq(w, "./prog");
	free(w);
	free(pathvar);
	ck_assert_int_eq(chdir(cwd), 0);
	/* No PATH at all: the system's. */
	w = spawn_which("sh", NULL);
	ck_assert_ptr_nonnull(w);
	ck_assert(w[0] == '/' && access(w, X_OK) == 0);
	free(w);
	free(cwd);
	free(b1);
	free(b2);
	free(b3);
	free(d);
}
END_TEST

/* spawn_start and spawn_wait */

static const struct exit_case {
	const char	*script;
	int		 status;
} exit_cases[] = {
	{ "exit 0", 0 },
	{ "exit 3", 3 },
	{ "exit 255", 255 },
	{ "kill -TERM $$", 128 + SIGTERM },
	{ "kill -KILL $$", 128 + SIGKILL },
};

START_TEST(t_exit_statuses)
{
	sig_init();
	ck_assert_int_eq(sh_status(exit_cases[_i].script),
	    exit_cases[_i].status);
	no_children();
}
END_TEST

/* What spawn_start refuses to start, and the errno it says why with. */
enum prog { NAMED, DATA_FILE, DIRECTORY };

static const struct start_case {
	enum prog	 prog;
	const char	*name;		/* for NAMED */
	int		 missing_dir;	/* run in a directory that is not there */
	int		 error;
} start_cases[] = {
	{ NAMED, "no-such-command-forge-unit", 0, ENOENT },
	{ NAMED, "/nonexistent-forge-unit/cmd", 0, ENOENT },
	/* A file that is not executable. */
	{ DATA_FILE, NULL, 0, EACCES },
	/* A directory. */
	{ DIRECTORY, NULL, 0, EACCES },
	/* A directory to run in that is not there: not "not found". */
	{ NAMED, "true", 1, ENOTDIR },
};

START_TEST(t_start_failures)
{
	const struct start_case	*c = &start_cases[_i];
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_exit	 ex;
	char			*d, *p = NULL, *dir = NULL, *argv[2];

	sig_init();
	d = unitfs_dir("start");
	switch (c->prog) {
	case NAMED:
		argv[0] = (char *)c->name;
		break;
	case DATA_FILE:
		p = unitfs_path(d, "data.txt");
		unitfs_write(p, "just data\n", 0644);
		argv[0] = p;
		break;
	default:
		argv[0] = d;
		break;
	}
	argv[1] = NULL;
	if (c->missing_dir)
		dir = unitfs_path(d, "missing");
	sp.in = SPAWN_NULL;
	sp.argv = argv;
	sp.dir = dir;
	errno = 0;
	ck_assert_int_eq(spawn_start(&sp), -1);
	ck_assert_int_eq(errno, c->error);
	ck_assert_int_eq(sp.pid, -1);
	/* The child that failed was reaped. */
	no_children();
	/* Waiting for nothing. */
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), -1);
	ck_assert_int_eq(errno, ECHILD);
	free(dir);
	free(p);
	free(d);
}
END_TEST

/* A file without #! runs under sh, arguments and all, as with execvp. */
START_TEST(t_script_without_shebang)
{
	struct spawn_exit	 ex;
	struct buf		 out = BUF_INIT;
	char			*d, *p, *argv[4];

	sig_init();
	d = unitfs_dir("script");
	p = unitfs_path(d, "script");
	unitfs_write(p, "echo \"$1|$2|$#\"\nexit 7\n", 0755);
	argv[0] = p;
	argv[1] = "a b";
	argv[2] = "c";
	argv[3] = NULL;
	ex = run(argv, 0, NULL, NULL, &out, NULL);
	ck_assert_int_eq(ex.status, 7);
	ck_assert_str_eq(out.data, "a b|c|2\n");
	buf_free(&out);
	free(p);
	free(d);
}
END_TEST

START_TEST(t_dir)
{
	char *const		 argv[] = { "sh", "-c", "pwd -P", NULL };
	struct spawn_exit	 ex;
	struct buf		 out = BUF_INIT;
	char			*d, *real, *cwd;

	sig_init();
	d = unitfs_dir("cwd");
	real = realpath(d, NULL);
	cwd = getcwd(NULL, 0);
	ex = run(argv, 0, d, NULL, &out, NULL);
	ck_assert_int_eq(ex.status, 0);
	buf_rtrim(&out);
	ck_assert_str_eq(out.data, real);
	/* Only the child moved. */
	free(real);
	real = getcwd(NULL, 0);
	ck_assert_str_eq(real, cwd);
	free(real);
	free(cwd);
	buf_free(&out);
	free(d);
}
END_TEST

START_TEST(t_pipes_out_err)
{
	char *const		argv[] = { "sh", "-c",
	    "printf 'to out'; printf 'to err' >&2; exit 2", NULL };
	struct spawn_exit	ex;
	struct buf		out = BUF_INIT, err = BUF_INIT;

	sig_init();
	ex = run(argv, 0, NULL, NULL, &out, &err);
	ck_assert_int_eq(ex.status, 2);
	ck_assert_str_eq(out.data, "to out");
	ck_assert_str_eq(err.data, "to err");
	buf_free(&out);
	buf_free(&err);
}
END_TEST

/* Much more than a pipe holds, both ways at once: no deadlock. */
START_TEST(t_stdin_data)
{
	char *const		argv[] = { "cat", NULL };
	struct spawn		sp = SPAWN_INIT;
	struct spawn_stream	st[2];
	struct spawn_exit	ex;
	struct buf		in = BUF_INIT, out = BUF_INIT;
	size_t			i;

	sig_init();
	for (i = 0; i < (3 << 20) / 8; i++)
		buf_addf(&in, "%07zu\n", i);
	sp.argv = argv;
	sp.in = SPAWN_PIPE;
	sp.out = SPAWN_PIPE;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert(fcntl(sp.in, F_GETFD) & FD_CLOEXEC);
	ck_assert(fcntl(sp.out, F_GETFD) & FD_CLOEXEC);
	memset(st, 0, sizeof(st));
	st[0].fd = sp.in;
	st[0].write = 1;
	st[0].buf = &in;
	st[1].fd = sp.out;
	st[1].buf = &out;
	st[1].relay_to = -1;
	ck_assert_int_eq(spawn_io(st, 2, NULL), 0);
	/* The write end was closed when all was written: cat saw EOF. */
	ck_assert_int_eq(st[0].fd, -1);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	ck_assert_uint_eq(out.len, (size_t)((3 << 20) / 8) * 8);
	ck_assert_str_eq(out.data + out.len - 8, "0393215\n");
	ck_assert(strncmp(out.data, "0000000\n0000001\n", 16) == 0);
	buf_free(&in);
	buf_free(&out);
}
END_TEST

/*
 * gen's output relayed through forge into sink's input, as git diff into
 * git apply: what passed through is in *ab (nothing, if relayed), sink's
 * output in *out, their exit statuses in *sa and *sb.
 */
static void
relay(char *const *gen, char *const *sink, struct buf *ab, struct buf *out,
    int *sa, int *sb)
{
	struct spawn		a = SPAWN_INIT, b = SPAWN_INIT;
	struct spawn_stream	st[3];
	struct spawn_exit	ex;
	struct buf		pass = BUF_INIT;

	sig_init();
	a.argv = gen;
	a.in = SPAWN_NULL;
	a.out = SPAWN_PIPE;
	b.argv = sink;
	b.in = SPAWN_PIPE;
	b.out = SPAWN_PIPE;
	ck_assert_int_eq(spawn_start(&a), 0);
	ck_assert_int_eq(spawn_start(&b), 0);
	memset(st, 0, sizeof(st));
	st[0].fd = a.out;
	st[0].buf = ab;
	st[0].relay_to = 1;
	st[1].fd = b.in;
	st[1].write = 1;
	st[1].buf = &pass;
	st[2].fd = b.out;
	st[2].buf = out;
	st[2].relay_to = -1;
	ck_assert_int_eq(spawn_io(st, 3, NULL), 0);
	ck_assert_int_eq(spawn_wait(&a, NULL, &ex), 0);
	*sa = ex.status;
	ck_assert_int_eq(spawn_wait(&b, NULL, &ex), 0);
	*sb = ex.status;
	buf_free(&pass);
}

/* git diff | git apply: one child's output into another's input. */
START_TEST(t_relay)
{
	char *const	gen[] = { "sh", "-c",
	    "i=0; while [ $i -lt 20000 ]; do echo line $i; i=$((i+1)); done",
	    NULL };
	char *const	sink[] = { "wc", "-l", NULL };
	struct buf	ab = BUF_INIT, out = BUF_INIT;
	int		sa, sb;

	relay(gen, sink, &ab, &out, &sa, &sb);
	ck_assert_int_eq(sa, 0);
	ck_assert_int_eq(sb, 0);
	buf_rtrim(&out);
	ck_assert_str_eq(out.data, "20000");
	/* Relayed, not kept. */
	ck_assert_uint_eq(ab.len, 0);
	buf_free(&ab);
	buf_free(&out);
}
END_TEST

/* The reader of a relay goes away: the writer's output is discarded,
 * and nothing blocks. */
START_TEST(t_relay_reader_gone)
{
	char *const	gen[] = { "sh", "-c",
	    "i=0; while [ $i -lt 50000 ]; do echo line $i; i=$((i+1)); done",
	    NULL };
	char *const	sink[] = { "head", "-c", "10", NULL };
	struct buf	ab = BUF_INIT, out = BUF_INIT;
	int		sa, sb;

	relay(gen, sink, &ab, &out, &sa, &sb);
	ck_assert_int_eq(sa, 0);
	ck_assert_str_eq(out.data, "line 0\nlin");
	buf_free(&ab);
	buf_free(&out);
}
END_TEST

START_TEST(t_stop_on_data)
{
	char *const		argv[] = { "sh", "-c",
	    "sleep 0.2; echo ready; exec sleep 30", NULL };
	struct spawn		sp = SPAWN_INIT;
	struct spawn_stream	st;
	struct spawn_exit	ex;
	struct spawn_limit	lim = { 1, 100, NULL };
	struct buf		out = BUF_INIT;
	long long		t0;

	sig_init();
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	sp.out = SPAWN_PIPE;
	ck_assert_int_eq(spawn_start(&sp), 0);
	memset(&st, 0, sizeof(st));
	st.fd = sp.out;
	st.buf = &out;
	st.relay_to = -1;
	st.stop_on_data = 1;
	t0 = timeutil_now_ms();
	ck_assert_int_eq(spawn_io(&st, 1, NULL), 1);
	ck_assert_int_lt(timeutil_now_ms() - t0, 5000);
	ck_assert_str_eq(out.data, "ready\n");
	/* Left open for the caller. */
	ck_assert_int_ne(st.fd, -1);
	close(st.fd);
	ck_assert_int_eq(spawn_wait(&sp, &lim, &ex), 0);
	ck_assert_int_eq(ex.timed_out, 1);
	buf_free(&out);
}
END_TEST

/* in = SPAWN_NULL reads nothing; out = an fd of ours gets a dup, and
 * the fd stays ours. */
START_TEST(t_fd_contract)
{
	char *const		argv[] = { "sh", "-c",
	    "cat; echo written; echo also >&2", NULL };
	struct spawn		sp = SPAWN_INIT;
	struct spawn_exit	ex;
	char			*d, *p, *text;
	int			fd;

	sig_init();
	d = unitfs_dir("fds");
	p = unitfs_path(d, "out");
	fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_gt(fd, 2);
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	sp.out = fd;
	sp.err = fd;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(sp.out, fd);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD), -1);
	ck_assert_int_eq(write(fd, "mine\n", 5), 5);
	close(fd);
	text = unitfs_read(p, NULL);
	ck_assert_str_eq(text, "written\nalso\nmine\n");
	free(text);
	free(p);
	free(d);
}
END_TEST

/* Nothing of ours leaks into the child: every fd we hold is CLOEXEC. */
START_TEST(t_no_fd_leak)
{
	char *const		argv[] = { "cat", NULL };
	struct spawn		sp = SPAWN_INIT;
	struct spawn_exit	ex;
	struct dirent		*de;
	DIR			*dir;
	char			*fddir;
	long			 fd;
	int			 pp[2], inherited[256];
	char			 c;

	sig_init();
	/* Open plenty of our own, as forge does, before starting it. */
	ck_assert_int_eq(pipe2(pp, O_CLOEXEC), 0);
	memset(inherited, 0, sizeof(inherited));
	for (fd = 0; fd < 256; fd++)
		inherited[fd] = fcntl((int)fd, F_GETFD) != -1 &&
		    !(fcntl((int)fd, F_GETFD) & FD_CLOEXEC);
	sp.argv = argv;
	sp.in = SPAWN_PIPE;
	sp.out = SPAWN_PIPE;
	sp.err = SPAWN_PIPE;
	ck_assert_int_eq(spawn_start(&sp), 0);
	/* spawn_start() returns once the exec happened, but the dynamic
	 * loader and cat's own start still open files for a moment, at the
	 * lowest free fd.  Once cat has echoed a byte it is in its copy loop
	 * and holds only what it was given. */
	ck_assert_int_eq(write(sp.in, "x", 1), 1);
	ck_assert_int_eq(read(sp.out, &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	ck_assert_int_ne(asprintf(&fddir, "/proc/%ld/fd", (long)sp.pid), -1);
	dir = opendir(fddir);
	ck_assert_ptr_nonnull(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, NULL, 10);
		ck_assert_msg(fd <= 2 || (fd < 256 && inherited[fd]),
		    "fd %ld leaked into the child", fd);
	}
	closedir(dir);
	free(fddir);
	close(sp.in);
	close(sp.out);
	close(sp.err);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	close(pp[0]);
	close(pp[1]);
}
END_TEST

#if defined(__x86_64__)
#define THIS_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define THIS_ARCH	AUDIT_ARCH_AARCH64
#endif
#define NR_CLOSE_RANGE	436

/* This test's process (check's fork mode) as on a kernel before Linux
 * 5.9: close_range(2) fails with ENOSYS.  0 where that cannot be. */
static int
no_close_range(void)
{
#ifdef THIS_ARCH
	struct sock_filter	f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, THIS_ARCH, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NR_CLOSE_RANGE, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog	prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
		return 0;
	ck_assert_int_eq(syscall(NR_CLOSE_RANGE, 1000U, 1001U, 0U), -1);
	ck_assert_int_eq(errno, ENOSYS);
	return 1;
#else
	return 0;
#endif
}

/* The hook of t_closefds: it still has its fds, which it writes to. */
static int
writing_hook(const void *arg, int *what)
{
	*what = 0;
	return write(*(const int *)arg, "h", 1) == 1 ? 0 : -1;
}

/*
 * SPAWN_CLOSEFDS: the child has in, out and err alone, whatever it
 * would have inherited, with close_range(2) (case 0) or without (1);
 * the hook runs before, with its fds; and a failed exec is still said.
 */
START_TEST(t_closefds)
{
	char *const		 argv[] = { "cat", NULL };
	char *const		 missing[] = { "/nonexistent/program", NULL };
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_exit	 ex;
	struct spawn_hook	 h;
	struct dirent		*de;
	DIR			*dir;
	char			*fddir, c;
	long			 fd;
	int			 null, hp[2], open_[3] = { 3, 9, 300 }, i;

	sig_init();
	if (_i == 1 && !no_close_range()) {
		fprintf(stderr, "# SKIP: no seccomp filter here to take "
		    "close_range(2) away\n");
		return;
	}
	/* Inherited, as from forge's caller: not close-on-exec.  (The
	 * lowest free ones: check has its own.) */
	ck_assert_int_ne(null = open("/dev/null", O_RDONLY | O_CLOEXEC), -1);
	for (i = 0; i < 3; i++)
		ck_assert_int_ge(open_[i] = fcntl(null, F_DUPFD, open_[i]),
		    3);
	close(null);
	ck_assert_int_eq(pipe2(hp, O_CLOEXEC), 0);
	h.fn = writing_hook;
	h.arg = &hp[1];
	sp.argv = argv;
	sp.in = SPAWN_PIPE;
	sp.out = SPAWN_PIPE;
	sp.err = SPAWN_NULL;
	sp.hook = &h;
	sp.flags = SPAWN_CLOSEFDS;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(read(hp[0], &c, 1), 1);
	ck_assert_int_eq(c, 'h');
	/* Once it echoes, cat is in its loop (t_no_fd_leak). */
	ck_assert_int_eq(write(sp.in, "x", 1), 1);
	ck_assert_int_eq(read(sp.out, &c, 1), 1);
	ck_assert_int_ne(asprintf(&fddir, "/proc/%ld/fd", (long)sp.pid), -1);
	ck_assert_ptr_nonnull(dir = opendir(fddir));
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		fd = strtol(de->d_name, NULL, 10);
		ck_assert_msg(fd <= 2, "fd %ld reached the child", fd);
	}
	closedir(dir);
	free(fddir);
	close(sp.in);
	close(sp.out);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	/* Ours are left as they were. */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(fcntl(open_[i], F_GETFD), 0);

	/* The pipe that says exec failed is not among those closed. */
	sp.argv = missing;
	sp.in = sp.out = SPAWN_NULL;
	sp.hook = NULL;
	errno = 0;
	ck_assert_int_eq(spawn_start(&sp), -1);
	ck_assert_int_eq(errno, ENOENT);
	for (i = 0; i < 3; i++)
		close(open_[i]);
	close(hp[0]);
	close(hp[1]);
}
END_TEST

static unsigned long long
status_mask(const char *status, const char *field)
{
	const char	*p;

	p = strstr(status, field);
	ck_assert_ptr_nonnull(p);
	return strtoull(p + strlen(field), NULL, 16);
}

static char *
child_status(void)
{
	char *const		argv[] = { "cat", "/proc/self/status", NULL };
	struct spawn_exit	ex;
	struct buf		out = BUF_INIT;

	ex = run(argv, 0, NULL, NULL, &out, NULL);
	ck_assert_int_eq(ex.status, 0);
	return buf_detach(&out);
}

#define BIT(sig)	(1ULL << ((sig) - 1))

/* The child starts with the dispositions and the mask forge started
 * with, whatever forge did to its own since. */
START_TEST(t_child_signals)
{
	unsigned long long	 ign0, blk0;
	sigset_t		 block;
	char			*mine, *theirs;

	/* What this process started with, before forge's set-up. */
	mine = unitfs_read("/proc/self/status", NULL);
	ign0 = status_mask(mine, "SigIgn:");
	blk0 = status_mask(mine, "SigBlk:");
	free(mine);
	ck_assert(!(ign0 & BIT(SIGPIPE)));
	ck_assert(!(ign0 & BIT(SIGXFSZ)));
	sig_init();
	/* forge itself ignores them now: the test below means something. */
	mine = unitfs_read("/proc/self/status", NULL);
	ck_assert(status_mask(mine, "SigIgn:") & BIT(SIGPIPE));
	ck_assert(status_mask(mine, "SigIgn:") & BIT(SIGXFSZ));
	free(mine);
	/* Blocked since: not the child's business. */
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigaddset(&block, SIGHUP);
	ck_assert_int_eq(sigprocmask(SIG_BLOCK, &block, NULL), 0);
	theirs = child_status();
	/* SIGPIPE is ignored here, by sig_init, but not in the child. */
	ck_assert_msg(status_mask(theirs, "SigIgn:") == ign0,
	    "child ignores %llx, not %llx", status_mask(theirs, "SigIgn:"),
	    ign0);
	ck_assert_msg(status_mask(theirs, "SigBlk:") == blk0,
	    "child blocks %llx, not %llx", status_mask(theirs, "SigBlk:"),
	    blk0);
	free(theirs);
}
END_TEST

/* A signal ignored when forge started stays ignored for the command,
 * as it would be without forge (nohup, a background job). */
START_TEST(t_child_keeps_ignored)
{
	char	*theirs;

	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	sig_init();
	theirs = child_status();
	ck_assert(status_mask(theirs, "SigIgn:") & BIT(SIGINT));
	ck_assert(status_mask(theirs, "SigIgn:") & BIT(SIGHUP));
	ck_assert(!(status_mask(theirs, "SigIgn:") & BIT(SIGTERM)));
	free(theirs);
	/* And forge does not record what it ignores. */
	raise(SIGINT);
	ck_assert_int_eq(sig_pending(), 0);
}
END_TEST

/* sig.c */

START_TEST(t_sig_record)
{
	struct pollfd	pfd;

	sig_init();
	ck_assert_int_ne(sig_fd(), -1);
	ck_assert_int_eq(sig_pending(), 0);
	ck_assert_int_eq(sig_count(), 0);
	raise(SIGHUP);
	ck_assert_int_eq(sig_pending(), SIGHUP);
	ck_assert_int_eq(sig_count(), 1);
	pfd.fd = sig_fd();
	pfd.events = POLLIN;
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	sig_drain();
	ck_assert_int_eq(poll(&pfd, 1, 0), 0);
	/* The first signal is the one that counts. */
	raise(SIGTERM);
	ck_assert_int_eq(sig_pending(), SIGHUP);
	ck_assert_int_eq(sig_count(), 2);
	/* SIGCHLD only wakes. */
	sig_drain();
	raise(SIGCHLD);
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ck_assert_int_eq(sig_count(), 2);
	/* SIGXFSZ is ignored: a write past the file size limit is EFBIG. */
	{
		struct rlimit	 old, rl;
		ssize_t		 w1, w2;
		char		*d, *p;
		int		 fd, err;

		d = unitfs_dir("fsize");
		p = unitfs_path(d, "f");
		fd = open(p, O_WRONLY | O_CREAT | O_EXCL, 0644);
		ck_assert_int_ne(fd, -1);
		ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
		rl = old;
		rl.rlim_cur = 10;
		/* check itself writes to a file: no assertion until the
		 * limit is back. */
		ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &rl), 0);
		w1 = write(fd, "0123456789", 10);
		errno = 0;
		w2 = write(fd, "x", 1);
		err = errno;
		(void)setrlimit(RLIMIT_FSIZE, &old);
		ck_assert_int_eq(w1, 10);
		ck_assert_int_eq(w2, -1);
		ck_assert_int_eq(err, EFBIG);
		close(fd);
		free(p);
		free(d);
	}
	/* SIGPIPE is ignored: a write to a closed pipe is EPIPE. */
	{
		int	p[2];

		ck_assert_int_eq(pipe(p), 0);
		close(p[0]);
		errno = 0;
		ck_assert_int_eq(write(p[1], "x", 1), -1);
		ck_assert_int_eq(errno, EPIPE);
		close(p[1]);
	}
}
END_TEST

START_TEST(t_sig_die)
{
	sig_init();
	sig_die(SIGTERM);
}
END_TEST

/* Time limits and process groups */

START_TEST(t_timeout_plain)
{
	char *const		argv[] = { "sleep", "30", NULL };
	struct spawn_limit	lim = { 200, 200, NULL };
	struct spawn_exit	ex;
	long long		t0, took;

	sig_init();
	t0 = timeutil_now_ms();
	ex = run(argv, 0, NULL, &lim, NULL, NULL);
	took = timeutil_now_ms() - t0;
	ck_assert_int_eq(ex.timed_out, 1);
	ck_assert_int_eq(ex.interrupted, 0);
	ck_assert_int_eq(ex.status, 128 + SIGTERM);
	ck_assert_msg(took >= 150 && took < 3000, "took %lldms", took);
	no_children();
}
END_TEST

/* Wait for pid, which must end within ms, whoever reaps it. */
static int
gone_within(pid_t pid, long ms)
{
	long long	until = timeutil_now_ms() + ms;

	while (!gone(pid) && timeutil_now_ms() < until) {
		(void)waitpid(pid, NULL, WNOHANG);
		usleep(10000);
	}
	return gone(pid);
}

/*
 * A leader that leaves a straggler in its group (straggler_script), run
 * with flags and a time limit.  As forge does, we adopt orphans
 * (spawn_adopt()), so that what was killed is reaped, whatever init
 * does on this machine.
 */
static const struct group_case {
	int			ignore;		/* the straggler ignores TERM */
	const char		*rest;		/* what the leader does next */
	int			flags;
	int			limited;	/* lim applies, or none */
	struct spawn_limit	lim;
	int			status;
	int			timed_out;
	long			min_ms;		/* how long it takes, at least */
	long			max_ms;		/* and below: 0, no bound */
	int			ended;		/* the straggler is gone after */
} group_cases[] = {
	/* The time limit ends the whole group, even a grandchild that
	 * ignores SIGTERM, and even when the leader itself dies of the
	 * SIGTERM. */
	{ 1, "wait", SPAWN_PGROUP, 1, { 1000, 300, NULL },
	    128 + SIGTERM, 1, 900, 8000, 1 },
	/* The leader ignores SIGTERM too: SIGKILL after the grace period. */
	{ 1, "trap '' TERM; wait; wait", SPAWN_PGROUP, 1, { 1000, 300, NULL },
	    128 + SIGKILL, 1, 1200, 8000, 1 },
	/* With SPAWN_ENDGROUP, a background job the leader leaves behind
	 * is ended too, so that nothing runs on in a copy about to be
	 * removed. */
	{ 0, "exit 4", SPAWN_PGROUP | SPAWN_ENDGROUP, 1, { 0, 300, NULL },
	    4, 0, 0, 0, 1 },
	/* One that ignores SIGTERM: killed after the grace period. */
	{ 1, "exit 0", SPAWN_PGROUP | SPAWN_ENDGROUP, 1, { 0, 300, NULL },
	    0, 0, 250, 0, 1 },
	/* Without SPAWN_ENDGROUP, a normal exit leaves the group alone. */
	{ 0, "exit 0", SPAWN_PGROUP, 0, { 0, 0, NULL },
	    0, 0, 0, 0, 0 },
};

START_TEST(t_group)
{
	const struct group_case	*c = &group_cases[_i];
	struct spawn_exit	 ex;
	long long		 t0, took;
	pid_t			 gc;
	char			*d, *pidfile, *argv[4];

	sig_init();
	spawn_adopt();
	d = unitfs_dir("group");
	pidfile = unitfs_path(d, "pid");
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = straggler_script(d, c->ignore, c->rest);
	argv[3] = NULL;
	t0 = timeutil_now_ms();
	ex = run(argv, c->flags, NULL, c->limited ? &c->lim : NULL, NULL,
	    NULL);
	took = timeutil_now_ms() - t0;
	ck_assert_int_eq(ex.status, c->status);
	ck_assert_int_eq(ex.timed_out, c->timed_out);
	ck_assert_msg(took >= c->min_ms && (c->max_ms == 0 ||
	    took < c->max_ms), "took %lldms", took);
	gc = read_pid(pidfile);
	if (c->ended)
		ck_assert_msg(gone(gc), "the straggler is still there");
	else {
		ck_assert_int_eq(kill(gc, 0), 0);
		ck_assert_int_eq(kill(gc, SIGKILL), 0);
		ck_assert_msg(gone_within(gc, 5000),
		    "cannot end the straggler");
	}
	no_children();
	free(argv[2]);
	free(pidfile);
	free(d);
}
END_TEST

/* A process that left the group (setsid) and lost its parent is adopted,
 * and ended with the group. */
START_TEST(t_endgroup_adopted)
{
	struct spawn_exit	 ex;
	pid_t			 gc;
	char			*d, *pidfile, *argv[4];

	if (access("/usr/bin/setsid", X_OK) != 0 &&
	    access("/bin/setsid", X_OK) != 0)
		return;		/* no setsid(1) here */
	sig_init();
	spawn_adopt();
	d = unitfs_dir("group");
	pidfile = unitfs_path(d, "pid");
	argv[0] = "sh";
	argv[1] = "-c";
	/* It records its session (field 6 of its stat): its own, out of
	 * the group, is what the test is about. */
	ck_assert_int_ne(asprintf(&argv[2], "cd '%s' || exit 99; "
	    "setsid sh -c 'cut -d\" \" -f6 /proc/$$/stat >sid; echo $$ >pid; "
	    "exec sleep 30' >/dev/null 2>&1 & "
	    "while [ ! -s pid ]; do sleep 0.01; done; exit 0", d), -1);
	argv[3] = NULL;
	ex = run(argv, SPAWN_PGROUP | SPAWN_ENDGROUP, NULL, NULL, NULL, NULL);
	ck_assert_int_eq(ex.status, 0);
	gc = read_pid(pidfile);
	free(pidfile);
	pidfile = unitfs_path(d, "sid");
	ck_assert_int_eq(read_pid(pidfile), gc);
	ck_assert_msg(gone_within(gc, 100), "the adopted process lives on");
	no_children();
	free(argv[2]);
	free(pidfile);
	free(d);
}
END_TEST

/*
 * spawn_wait() is about one child.  Ending the rest of its group must not
 * kill or reap another child the caller started and has yet to wait for.
 */
START_TEST(t_wait_spares_siblings)
{
	char *const		 sleeper[] = { "sleep", "30", NULL };
	char *const		 timed[] = { "sleep", "30", NULL };
	struct spawn		 sib = SPAWN_INIT, sp = SPAWN_INIT;
	struct spawn_limit	 lim = { 200, 200, NULL };
	struct spawn_exit	 ex;
	pid_t			 sibpid;

	sig_init();
	sib.argv = sleeper;
	sib.in = SPAWN_NULL;
	ck_assert_int_eq(spawn_start(&sib), 0);
	sibpid = sib.pid;
	sp.argv = timed;
	sp.in = SPAWN_NULL;
	sp.flags = SPAWN_PGROUP;
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(spawn_wait(&sp, &lim, &ex), 0);
	ck_assert_int_eq(ex.timed_out, 1);
	/* Long enough for a SIGKILL sent its way to have landed. */
	usleep(200000);
	ck_assert_msg(waitpid(sibpid, NULL, WNOHANG) == 0,
	    "ending a timed-out group killed or reaped an unrelated child");
	ck_assert_int_eq(kill(sibpid, SIGTERM), 0);
	ck_assert_int_eq(spawn_wait(&sib, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 128 + SIGTERM);
}
END_TEST

/* SPAWN_TIED: what forge starts dies with forge, even of SIGKILL. */
START_TEST(t_tied)
{
	char *const	 argv[] = { "sleep", "30", NULL };
	struct spawn	 sp = SPAWN_INIT;
	pid_t		 mid, child;
	int		 p[2], ws;

	spawn_adopt();
	ck_assert_int_eq(pipe(p), 0);
	mid = fork();
	ck_assert_int_ne(mid, -1);
	if (mid == 0) {
		close(p[0]);
		sp.argv = argv;
		sp.in = SPAWN_NULL;
		sp.out = SPAWN_NULL;
		sp.err = SPAWN_NULL;
		sp.flags = SPAWN_TIED;
		if (spawn_start(&sp) == -1)
			_exit(1);
		(void)write(p[1], &sp.pid, sizeof(sp.pid));
		raise(SIGKILL);
		_exit(2);
	}
	close(p[1]);
	ck_assert_int_eq(read(p[0], &child, sizeof(child)),
	    (ssize_t)sizeof(child));
	close(p[0]);
	ck_assert_int_eq(waitpid(mid, &ws, 0), mid);
	ck_assert(WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL);
	/* Adopted by us when its parent died: reap it and see how. */
	ck_assert_int_eq(waitpid(child, &ws, 0), child);
	ck_assert(WIFSIGNALED(ws));
	ck_assert_int_eq(WTERMSIG(ws), SIGKILL);
}
END_TEST

/*
 * A fatal signal to forge while it waits: the child is stopped, and the
 * exit says it was interrupted.  With SPAWN_FORWARD the group gets the
 * very signal forge got.
 */
static const struct interrupt_case {
	int	flags;
	int	sig;
} interrupt_cases[] = {
	{ 0, SIGTERM },
	{ SPAWN_PGROUP | SPAWN_FORWARD, SIGINT },
};

START_TEST(t_interrupted)
{
	const struct interrupt_case	*c = &interrupt_cases[_i];
	char *const			 argv[] = { "sleep", "30", NULL };
	struct spawn			 sp = SPAWN_INIT;
	struct spawn_limit		 lim = { 0, 300, NULL };
	struct spawn_exit		 ex;

	sig_init();
	sp.argv = argv;
	sp.in = SPAWN_NULL;
	sp.flags = c->flags;
	ck_assert_int_eq(spawn_start(&sp), 0);
	if (c->flags & SPAWN_PGROUP)
		ck_assert_int_eq(getpgid(sp.pid), sp.pid);
	raise(c->sig);
	ck_assert_int_eq(spawn_wait(&sp, &lim, &ex), 0);
	ck_assert_int_eq(ex.interrupted, 1);
	ck_assert_int_eq(ex.timed_out, 0);
	ck_assert_int_eq(ex.status, 128 + c->sig);
	no_children();
}
END_TEST

/* A hook runs in the child before the chdir; its failure comes back
 * with what it says failed, and nothing runs. */
static int
failing_hook(const void *arg, int *what)
{
	(void)arg;
	*what = 5;
	errno = EXDEV;
	return -1;
}

static int
marking_hook(const void *arg, int *what)
{
	int	fd;

	*what = 0;
	/* Before the chdir: the child is still where we are. */
	if ((fd = open((const char *)arg, O_WRONLY | O_CREAT | O_CLOEXEC,
	    0644)) == -1)
		return -1;
	return close(fd);
}

START_TEST(t_hook)
{
	struct spawn		 sp = SPAWN_INIT;
	struct spawn_hook	 h;
	struct spawn_exit	 ex;
	char			*argv[] = { "true", NULL };
	char			*d, *mark;

	d = unitfs_dir("hook");
	ck_assert_int_eq(chdir(d), 0);
	h.fn = failing_hook;
	h.arg = NULL;
	sp.argv = argv;
	sp.hook = &h;
	errno = 0;
	ck_assert_int_eq(spawn_start(&sp), -1);
	ck_assert_int_eq(errno, EXDEV);
	ck_assert_int_eq(sp.hook_what, 5);
	ck_assert_int_eq(sp.pid, -1);

	ck_assert_int_ne(asprintf(&mark, "%s/mark", d), -1);
	h.fn = marking_hook;
	h.arg = "mark";
	sp.dir = "/";
	ck_assert_int_eq(spawn_start(&sp), 0);
	ck_assert_int_eq(sp.hook_what, -1);
	ck_assert_int_eq(spawn_wait(&sp, NULL, &ex), 0);
	ck_assert_int_eq(ex.status, 0);
	ck_assert(unitfs_exists(mark));
	/* Any other failure is not the hook's. */
	argv[0] = "/nonexistent/program";
	ck_assert_int_eq(spawn_start(&sp), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(sp.hook_what, -1);
	free(mark);
	free(d);
}
END_TEST

/* A hook tried alone: what it did is done in a child that then exits,
 * and its failure comes back as spawn_start() would give it. */
START_TEST(t_probe)
{
	struct spawn_hook	 h;
	char			*d, *mark;
	int			 what;

	d = unitfs_dir("probe");
	ck_assert_int_eq(chdir(d), 0);
	h.fn = failing_hook;
	h.arg = NULL;
	errno = 0;
	ck_assert_int_eq(spawn_probe(&h, &what), -1);
	ck_assert_int_eq(errno, EXDEV);
	ck_assert_int_eq(what, 5);
	ck_assert_int_ne(asprintf(&mark, "%s/mark", d), -1);
	h.fn = marking_hook;
	h.arg = "mark";
	ck_assert_int_eq(spawn_probe(&h, &what), 0);
	ck_assert(unitfs_exists(mark));
	/* Nothing of it is left to reap. */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	free(mark);
	free(d);
}
END_TEST

static Suite *
spawn_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("spawn");
	tc = tcase_create("pure");
	tcase_add_test(tc, t_status);
	tcase_add_test(tc, t_env);
	tcase_add_test_raise_signal(tc, t_sig_die, SIGTERM);
	suite_add_tcase(s, tc);

	tc = tcase_create("start");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_sig_record);
	tcase_add_test(tc, t_env_child);
	tcase_add_test(tc, t_which);
	tcase_add_loop_test(tc, t_exit_statuses, 0, NCASES(exit_cases));
	tcase_add_loop_test(tc, t_start_failures, 0, NCASES(start_cases));
	tcase_add_test(tc, t_script_without_shebang);
	tcase_add_test(tc, t_dir);
	tcase_add_test(tc, t_hook);
	tcase_add_test(tc, t_probe);
	tcase_add_test(tc, t_fd_contract);
	tcase_add_test(tc, t_no_fd_leak);
	tcase_add_loop_test(tc, t_closefds, 0, 2);
	tcase_add_test(tc, t_child_signals);
	tcase_add_test(tc, t_child_keeps_ignored);
	suite_add_tcase(s, tc);

	tc = tcase_create("io");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_pipes_out_err);
	tcase_add_test(tc, t_stdin_data);
	tcase_add_test(tc, t_relay);
	tcase_add_test(tc, t_relay_reader_gone);
	tcase_add_test(tc, t_stop_on_data);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_add_unchecked_fixture(tc, unitfs_setup, unitfs_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, t_timeout_plain);
	tcase_add_loop_test(tc, t_group, 0, NCASES(group_cases));
	tcase_add_test(tc, t_endgroup_adopted);
	tcase_add_test(tc, t_wait_spares_siblings);
	tcase_add_test(tc, t_tied);
	tcase_add_loop_test(tc, t_interrupted, 0, NCASES(interrupt_cases));
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(spawn_suite)
