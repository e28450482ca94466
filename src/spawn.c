/* Processes started and waited for: vfork or fork, exec and wait (spawn.h). */
/*
 * With the fd contract, process groups, terminal hand-over and time
 * limits described in spawn.h.
 */
#include "config.h"

#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <dirent.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "forge.h"
#include "proc.h"
#include "sig.h"
#include "spawn.h"
#include "timeutil.h"
#include "xmalloc.h"

extern char	**environ;

#ifndef SYS_close_range
#define SYS_close_range	436	/* the same on every architecture */
#endif

/* What the child reports through the exec pipe when it cannot start. */
struct child_error {
	int	stage;		/* 0: chdir, 1: exec, 2: the hook */
	int	err;
	int	what;		/* the hook's */
};

/*
 * The children spawn_start() made that spawn_wait() has yet to reap.
 * Any other child of ours is a process we adopted (spawn_adopt()).
 */
static pid_t	*live;
static size_t	 nlive, caplive;

static void
live_add(pid_t pid)
{
	if (nlive == caplive) {
		caplive = caplive ? caplive * 2 : 8;
		live = xreallocarray(live, caplive, sizeof(*live));
	}
	live[nlive++] = pid;
}

static void
live_del(pid_t pid)
{
	size_t	i;

	for (i = 0; i < nlive; i++)
		if (live[i] == pid) {
			live[i] = live[--nlive];
			return;
		}
}

static int
live_has(pid_t pid)
{
	size_t	i;

	for (i = 0; i < nlive; i++)
		if (live[i] == pid)
			return 1;
	return 0;
}

void
spawn_reaped(struct spawn *sp)
{
	live_del(sp->pid);
	sp->pid = -1;
}

int
spawn_status(int ws)
{
	if (WIFEXITED(ws))
		return WEXITSTATUS(ws);
	if (WIFSIGNALED(ws))
		return 128 + WTERMSIG(ws);
	return EXIT_FORGE;
}

static size_t
namelen(const char *s)
{
	const char	*eq;

	return (eq = strchr(s, '=')) != NULL ? (size_t)(eq - s) : strlen(s);
}

char **
spawn_env(char *const *base, char *const *changes)
{
	char		**env;
	size_t		  nb = 0, nc = 0, n = 0, i, j, len;
	int		  drop;

	while (base != NULL && base[nb] != NULL)
		nb++;
	while (changes != NULL && changes[nc] != NULL)
		nc++;
	env = xreallocarray(NULL, nb + nc + 1, sizeof(*env));
	for (i = 0; i < nb; i++) {
		len = namelen(base[i]);
		drop = base[i][len] != '=';	/* malformed: not passed on */
		for (j = 0; j < nc && !drop; j++)
			drop = namelen(changes[j]) == len &&
			    strncmp(changes[j], base[i], len) == 0;
		if (!drop)
			env[n++] = base[i];
	}
	for (j = 0; j < nc; j++) {
		if (strchr(changes[j], '=') == NULL)
			continue;
		/* A later change to the same name wins. */
		len = namelen(changes[j]);
		for (i = j + 1; i < nc; i++)
			if (namelen(changes[i]) == len &&
			    strncmp(changes[i], changes[j], len) == 0)
				break;
		if (i == nc)
			env[n++] = changes[j];
	}
	env[n] = NULL;
	return env;
}

static const char *
env_get(char *const *env, const char *name)
{
	size_t	len = strlen(name);

	for (; env != NULL && *env != NULL; env++)
		if (strncmp(*env, name, len) == 0 && (*env)[len] == '=')
			return *env + len + 1;
	return NULL;
}

char *
spawn_which(const char *name, const char *path)
{
	struct stat	 st;
	const char	*p, *colon;
	char		*cand;
	size_t		 dlen;
	int		 denied = 0;

	if (*name == '\0') {
		errno = ENOENT;
		return NULL;
	}
	if (strchr(name, '/') != NULL)
		return xstrdup(name);
	if (path == NULL)
		path = "/bin:/usr/bin";
	for (p = path;; p = colon + 1) {
		colon = strchr(p, ':');
		dlen = colon != NULL ? (size_t)(colon - p) : strlen(p);
		if (dlen == 0)
			cand = xasprintf("./%s", name);
		else
			cand = xasprintf("%.*s/%s", (int)dlen, p, name);
		if (stat(cand, &st) == 0 && !S_ISDIR(st.st_mode)) {
			if (access(cand, X_OK) == 0)
				return cand;
			denied = 1;
		}
		free(cand);
		if (colon == NULL)
			break;
	}
	errno = denied ? EACCES : ENOENT;
	return NULL;
}

static int
devnull(void)
{
	return open("/dev/null", O_RDWR | O_CLOEXEC);
}

/* Take the terminal's foreground for pgid without being stopped by it. */
static void
set_foreground(pid_t pgid)
{
	sigset_t	ttou, old;

	sigemptyset(&ttou);
	sigaddset(&ttou, SIGTTOU);
	sigprocmask(SIG_BLOCK, &ttou, &old);
	(void)tcsetpgrp(STDIN_FILENO, pgid);
	sigprocmask(SIG_SETMASK, &old, NULL);
}

/* What spawn_start() makes ready before the fork, and undoes on failure. */
struct prep {
	char	 *path;		/* the program, found on PATH */
	char	**envp;
	char	**shargv;	/* sh path args..., for a file without #! */
	int	  want[3];	/* in, out, err as the caller asked */
	int	  child[3];	/* the child's ends, or -1 */
	int	  mine[3];	/* our ends of SPAWN_PIPEs, or -1 */
	int	  ep[2];	/* the child's exec error comes back here */
	int	  give_tty;
	int	  nofile;	/* SPAWN_CLOSEFDS without close_range(2):
				   the fds to close are below this */
	pid_t	  parent;
};

static void
prep_close(struct prep *pp)
{
	int	i, saved = errno;

	for (i = 0; i < 3; i++) {
		if (pp->child[i] != -1)
			close(pp->child[i]);
		if (pp->mine[i] != -1)
			close(pp->mine[i]);
		pp->child[i] = pp->mine[i] = -1;
	}
	if (pp->ep[0] != -1)
		close(pp->ep[0]);
	if (pp->ep[1] != -1)
		close(pp->ep[1]);
	pp->ep[0] = pp->ep[1] = -1;
	free(pp->path);
	free(pp->envp);
	free(pp->shargv);
	pp->path = NULL;
	pp->envp = pp->shargv = NULL;
	errno = saved;
}

/* The program, its environment and its argv under sh. */
static int
prepare_exec(const struct spawn *sp, struct prep *pp)
{
	size_t	n, i;

	pp->envp = spawn_env(environ, sp->env);
	if ((pp->path = spawn_which(sp->argv[0], env_get(pp->envp,
	    "PATH"))) == NULL)
		return -1;
	/* A file without #! runs under sh, as execvp(3) and shells do. */
	for (n = 0; sp->argv[n] != NULL; n++)
		;
	pp->shargv = xreallocarray(NULL, n + 2, sizeof(*pp->shargv));
	pp->shargv[0] = "sh";
	pp->shargv[1] = pp->path;
	for (i = 1; i <= n; i++)
		pp->shargv[i + 1] = sp->argv[i];
	return 0;
}

/* The fd contract: pipes and /dev/null made here, the rest passed on. */
static int
prepare_fds(const struct spawn *sp, struct prep *pp)
{
	struct rlimit	rl;
	int		i, p[2];

	pp->want[0] = sp->in;
	pp->want[1] = sp->out;
	pp->want[2] = sp->err;
	for (i = 0; i < 3; i++) {
		if (pp->want[i] == SPAWN_PIPE) {
			if (pipe2(p, O_CLOEXEC) == -1)
				return -1;
			pp->child[i] = i == 0 ? p[0] : p[1];
			pp->mine[i] = i == 0 ? p[1] : p[0];
		} else if (pp->want[i] == SPAWN_NULL) {
			if ((pp->child[i] = devnull()) == -1)
				return -1;
		}
	}
	if (pipe2(pp->ep, O_CLOEXEC) == -1)
		return -1;
	pp->give_tty = (sp->flags & SPAWN_PGROUP) &&
	    (sp->flags & SPAWN_TERMINAL) && isatty(STDIN_FILENO) &&
	    tcgetpgrp(STDIN_FILENO) == getpgrp();
	/* Read here: getrlimit(2) is not among the calls a child between
	 * fork and exec may make.  (Unknown: Linux's default fs.nr_open.) */
	pp->nofile = 1 << 20;
	if ((sp->flags & SPAWN_CLOSEFDS) &&
	    getrlimit(RLIMIT_NOFILE, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < INT_MAX)
		pp->nofile = (int)rl.rlim_cur;
	return 0;
}

/*
 * The child's fds from first to last closed: close_range(2), or where
 * the kernel has none (before Linux 5.9, or a seccomp filter that
 * refuses it), close(2) one at a time up to the limit on open files.
 * (libbsd's closefrom() would fall back to opendir(3), which allocates:
 * not for a child between fork and exec.)
 */
static void
child_close_range(int first, int last, int nofile)
{
	int	fd;

	if (first > last)
		return;
	if (syscall(SYS_close_range, (unsigned int)first, (unsigned int)last,
	    0U) == 0)
		return;
	for (fd = first; fd <= last && fd < nofile; fd++)
		(void)close(fd);
}

/*
 * The child, between fork and exec: only async-signal-safe calls.  A
 * failure goes back to the parent through ep, as the stage and errno.
 * Never inlined: a vfork child's locals are then in a frame of its own,
 * below the parent's, not in slots of spawn_start()'s that the compiler
 * might reuse.
 */
static void __attribute__((__noreturn__, __noinline__))
child_side(const struct spawn *sp, const struct prep *pp)
{
	struct child_error	ce;
	int			i, fd;

	if ((sp->flags & SPAWN_TIED) &&
	    (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    getppid() != pp->parent))
		_exit(EXIT_FORGE);
	if (sp->flags & SPAWN_PGROUP)
		(void)setpgid(0, 0);
	if (pp->give_tty)
		(void)tcsetpgrp(STDIN_FILENO, getpid());
	ce.stage = 1;
	ce.what = -1;
	for (i = 0; i < 3; i++) {
		fd = pp->child[i] != -1 ? pp->child[i] : pp->want[i] > 0 ?
		    pp->want[i] : -1;
		if (fd == -1)
			continue;
		if (fd == i)
			(void)fcntl(fd, F_SETFD, 0);
		else if (dup2(fd, i) == -1)
			goto fail;
	}
	if (sp->hook != NULL && sp->hook->fn(sp->hook->arg, &ce.what) == -1) {
		ce.stage = 2;
		goto fail;
	}
	/* After the hook, which may need fds of its own; ep stays, to say
	 * if exec fails, and closes itself when it does not. */
	if (sp->flags & SPAWN_CLOSEFDS) {
		child_close_range(STDERR_FILENO + 1, pp->ep[1] - 1,
		    pp->nofile);
		child_close_range(pp->ep[1] + 1, INT_MAX, pp->nofile);
	}
	if (sp->dir != NULL && chdir(sp->dir) == -1) {
		ce.stage = 0;
		goto fail;
	}
	sig_child_reset();
	execve(pp->path, sp->argv, pp->envp);
	if (errno == ENOEXEC)
		execve("/bin/sh", pp->shargv, pp->envp);
fail:
	ce.err = errno;
	(void)write(pp->ep[1], &ce, sizeof(ce));
	_exit(EXIT_NOTFOUND);
}

/* Did the child say that it could not exec?  Then reap it: -1, errno,
 * or -2 - what for a failed hook. */
static int
exec_failed(struct prep *pp, pid_t pid)
{
	struct child_error	ce;
	ssize_t			r;

	close(pp->ep[1]);
	pp->ep[1] = -1;
	do
		r = read(pp->ep[0], &ce, sizeof(ce));
	while (r == -1 && errno == EINTR);
	if (r != (ssize_t)sizeof(ce))
		return 0;		/* exec closed it: running */
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		;
	if (pp->give_tty)
		set_foreground(getpgrp());
	/* A directory that is not there: not "command not found". */
	errno = ce.stage == 0 && ce.err == ENOENT ? ENOTDIR : ce.err;
	return ce.stage == 2 ? -2 - ce.what : -1;
}

int
spawn_start(struct spawn *sp)
{
	struct prep	 pp;
	sigset_t	 oldmask;
	pid_t		 pid;
	int		 i, saved, r;

	memset(&pp, 0, sizeof(pp));
	for (i = 0; i < 3; i++)
		pp.child[i] = pp.mine[i] = -1;
	pp.ep[0] = pp.ep[1] = -1;
	sp->pid = -1;
	sp->has_tty = 0;
	sp->hook_what = -1;
	if (prepare_exec(sp, &pp) == -1 || prepare_fds(sp, &pp) == -1)
		goto fail;
	pp.parent = getpid();
	sig_block_all(&oldmask);
	/*
	 * Without a hook, the child only makes system calls until it execs
	 * (child_side()): it borrows this process's memory (vfork), rather
	 * than a copy of all of it that this process then writes through
	 * page by page.  A hook may need a process of its own (namespaces).
	 */
	if ((pid = sp->hook == NULL ? vfork() : fork()) == 0)
		child_side(sp, &pp);
	saved = errno;
	sig_restore(&oldmask);
	if (pid == -1) {
		errno = saved;
		goto fail;
	}
	if (sp->flags & SPAWN_PGROUP)
		(void)setpgid(pid, pid);
	if (pp.give_tty)
		set_foreground(pid);
	for (i = 0; i < 3; i++)
		if (pp.child[i] != -1) {
			close(pp.child[i]);
			pp.child[i] = -1;
		}
	if ((r = exec_failed(&pp, pid)) < 0) {
		if (r < -1)
			sp->hook_what = -2 - r;
		goto fail;
	}
	sp->pid = pid;
	sp->has_tty = pp.give_tty;
	live_add(pid);
	if (pp.want[0] == SPAWN_PIPE)
		sp->in = pp.mine[0];
	if (pp.want[1] == SPAWN_PIPE)
		sp->out = pp.mine[1];
	if (pp.want[2] == SPAWN_PIPE)
		sp->err = pp.mine[2];
	pp.mine[0] = pp.mine[1] = pp.mine[2] = -1;
	if ((sp->flags & SPAWN_PGROUP) && (sp->flags & SPAWN_FORWARD))
		sig_forward(pid);
	prep_close(&pp);
	return 0;
fail:
	prep_close(&pp);
	return -1;
}

/*
 * The hook alone, in a child that exits where another would exec: what
 * it would do to a command is done to nothing, and said.
 */
int
spawn_probe(const struct spawn_hook *hook, int *what)
{
	struct child_error	 ce;
	sigset_t		 oldmask;
	ssize_t			 r;
	pid_t			 pid;
	int			 ep[2], saved, wst;

	*what = -1;
	if (pipe2(ep, O_CLOEXEC) == -1)
		return -1;
	sig_block_all(&oldmask);
	if ((pid = fork()) == 0) {
		close(ep[0]);
		ce.stage = 2;
		ce.what = -1;
		if (hook->fn(hook->arg, &ce.what) == 0)
			_exit(0);
		ce.err = errno;
		(void)write(ep[1], &ce, sizeof(ce));
		_exit(EXIT_NOTFOUND);
	}
	saved = errno;
	sig_restore(&oldmask);
	close(ep[1]);
	if (pid == -1) {
		close(ep[0]);
		errno = saved;
		return -1;
	}
	do
		r = read(ep[0], &ce, sizeof(ce));
	while (r == -1 && errno == EINTR);
	close(ep[0]);
	while (waitpid(pid, &wst, 0) == -1 && errno == EINTR)
		;
	if (r == (ssize_t)sizeof(ce)) {
		*what = ce.what;
		errno = ce.err;
		return -1;
	}
	/* Said nothing: it must then have exited 0, and nothing else. */
	if (!WIFEXITED(wst) || WEXITSTATUS(wst) != 0) {
		errno = ECHILD;
		return -1;
	}
	return 0;
}

/* A child may have exited: let the caller's background work move on. */
static void
idle(const struct spawn_idle *id)
{
	if (id != NULL && id->fn != NULL)
		id->fn(id->arg);
}

/*
 * Sleep until a signal arrives or ms pass (ms < 0: until a signal) --
 * a second at most: the handler's byte on the wake pipe is all that
 * says a child exited, and a write of it that failed would have forge
 * wait for ever on a child that is gone.
 */
static void
pause_ms(long long ms, const struct spawn_idle *id)
{
	struct pollfd	pfd;
	int		fd = sig_fd();

	if (ms < 0 || ms > 1000)
		ms = 1000;
	if (fd == -1 && ms > 20)
		ms = 20;
	pfd.fd = fd;
	pfd.events = POLLIN;
	(void)poll(&pfd, fd == -1 ? 0 : 1, (int)ms);
	sig_drain();
	idle(id);
}

/* The child stopped (^Z): stop with it, as it would have under a shell. */
static void
job_stop(struct spawn *sp)
{
	set_foreground(getpgrp());
	(void)kill(getpid(), SIGTSTP);
	/* Continued: if we are in the foreground again, so is the child. */
	if (tcgetpgrp(STDIN_FILENO) == getpgrp())
		set_foreground(sp->pid);
	(void)kill(-sp->pid, SIGCONT);
}

/*
 * Reap our adopted children that have died -- and, with kill_them, end
 * the others first: processes that left the command's group and whose
 * parents have exited since, which must not outlive a copy.
 */
static void
adopted(int kill_them)
{
	struct proc_stat	 ps;
	struct dirent		*de;
	DIR			*d;
	char			*p;
	long			 pid;

	if ((d = opendir("/proc")) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if ((pid = strtol(de->d_name, &p, 10)) <= 0 || *p != '\0' ||
		    live_has((pid_t)pid))
			continue;
		if (proc_stat((pid_t)pid, &ps) == -1 || ps.ppid != getpid())
			continue;
		if (kill_them)
			(void)kill((pid_t)pid, SIGKILL);
		(void)waitpid((pid_t)pid, NULL, kill_them ? 0 : WNOHANG);
	}
	closedir(d);
}

/* Is the process group empty, counting its dead as gone? */
static int
group_gone(pid_t pgid)
{
	if (kill(-pgid, 0) == -1)
		return 1;
	adopted(0);
	return kill(-pgid, 0) == -1;
}

/*
 * The leader is gone; end whatever else of its group is left (a
 * background job, a grandchild that ignores SIGTERM) so that nothing runs
 * on in a copy about to be removed.
 */
static void
end_group(pid_t pgid, int term_sent, long long kill_at, long grace)
{
	long long	now, until;

	if (group_gone(pgid))
		goto adopted;
	now = timeutil_now_ms();
	if (!term_sent) {
		(void)kill(-pgid, SIGTERM);
		kill_at = now + grace;
	}
	(void)kill(-pgid, SIGCONT);
	while ((now = timeutil_now_ms()) < kill_at && sig_count() < 2) {
		if (group_gone(pgid))
			goto adopted;
		pause_ms(10, NULL);
	}
	(void)kill(-pgid, SIGKILL);
	until = timeutil_now_ms() + 2000;
	while (!group_gone(pgid) && timeutil_now_ms() < until)
		pause_ms(5, NULL);
adopted:
	adopted(1);
}

void
spawn_adopt(void)
{
	(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
}

/*
 * Has fd, an output the child had, lost its reader: a pipe or FIFO that
 * nobody holds open for reading any more, a socket shut down?  Asked
 * without writing a byte: Linux tells a pipe's writer POLLERR once its
 * last reader is gone.
 */
static int
reader_gone(int fd)
{
	struct pollfd	pfd;
	struct stat	st;

	if (fd < 0 || fstat(fd, &st) == -1 ||
	    (!S_ISFIFO(st.st_mode) && !S_ISSOCK(st.st_mode)))
		return 0;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	pfd.revents = 0;
	if (poll(&pfd, 1, 0) != 1)
		return 0;
	return (pfd.revents & POLLERR) != 0 ||
	    (S_ISSOCK(st.st_mode) && (pfd.revents & POLLHUP) != 0);
}

int
spawn_wait(struct spawn *sp, const struct spawn_limit *lim,
    struct spawn_exit *ex)
{
	struct rusage	 ru;
	long long	 now, deadline = 0, kill_at = 0, wait_ms;
	long		 grace;
	pid_t		 target, r;
	int		 term_sent = 0, kill_sent = 0, ws = 0, pgroup;

	memset(ex, 0, sizeof(*ex));
	if (sp->pid <= 0) {
		errno = ECHILD;
		return -1;
	}
	pgroup = (sp->flags & SPAWN_PGROUP) != 0;
	target = pgroup ? -sp->pid : sp->pid;
	grace = lim != NULL && lim->grace_ms > 0 ? lim->grace_ms :
	    DEFAULT_GRACE_MS;
	if (lim != NULL && lim->timeout_ms > 0)
		deadline = timeutil_now_ms() + lim->timeout_ms;

	for (;;) {
		r = wait4(sp->pid, &ws, WNOHANG |
		    (sp->has_tty ? WUNTRACED : 0), &ru);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -1;
		if (r == sp->pid) {
			if (WIFSTOPPED(ws)) {
				job_stop(sp);
				continue;
			}
			live_del(sp->pid);
			break;
		}
		now = timeutil_now_ms();
		if (!term_sent && sig_pending() != 0) {
			ex->interrupted = 1;
			if (!(pgroup && (sp->flags & SPAWN_FORWARD)))
				(void)kill(target, SIGTERM);
			(void)kill(target, SIGCONT);
			term_sent = 1;
			kill_at = now + grace;
		}
		if (!term_sent && deadline != 0 && now >= deadline) {
			ex->timed_out = 1;
			(void)kill(target, SIGTERM);
			(void)kill(target, SIGCONT);
			term_sent = 1;
			kill_at = now + grace;
		}
		if (term_sent && !kill_sent &&
		    (now >= kill_at || sig_count() > 1)) {
			(void)kill(target, SIGKILL);
			kill_sent = 1;
		}
		wait_ms = -1;
		if (!term_sent && deadline != 0)
			wait_ms = deadline > now ? deadline - now : 0;
		else if (term_sent && !kill_sent)
			wait_ms = kill_at > now ? kill_at - now : 0;
		pause_ms(wait_ms, lim != NULL ? lim->idle : NULL);
	}
	/* A signal forwarded as it came (SPAWN_FORWARD) may have ended the
	 * child before it was first looked for. */
	if (sig_pending() != 0)
		ex->interrupted = 1;

	if (pgroup && (sp->flags & SPAWN_FORWARD))
		sig_forward(0);
	ex->terminal = sp->has_tty;
	if (sp->has_tty)
		set_foreground(getpgrp());
	if (pgroup && (term_sent || (sp->flags & SPAWN_ENDGROUP)))
		end_group(sp->pid, term_sent, kill_sent ? 0 : kill_at, grace);
	ex->wstatus = ws;
	ex->status = spawn_status(ws);
	ex->maxrss_kb = ru.ru_maxrss;
	if (ex->status == 128 + SIGPIPE &&
	    (reader_gone(sp->out == SPAWN_INHERIT ? STDOUT_FILENO : sp->out) ||
	    reader_gone(sp->err == SPAWN_INHERIT ? STDERR_FILENO : sp->err)))
		ex->broken_pipe = 1;
	sp->pid = -1;
	sp->has_tty = 0;
	return 0;
}

void
spawn_stream_init(struct spawn_stream *st, int fd, int write, struct buf *b,
    int relay)
{
	memset(st, 0, sizeof(*st));
	st->fd = fd;
	st->write = write;
	st->buf = b;
	st->relay_to = relay;
}

static void
close_stream(struct spawn_stream *s)
{
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
}

/* Which streams to poll, and for what; a write stream nobody feeds any
 * more, with nothing left to write, is closed here.  How many. */
static size_t
poll_set(struct spawn_stream *st, size_t n, struct pollfd *pfd, size_t *idx)
{
	size_t	i, j, np = 0;
	int	fed;

	for (i = 0; i < n; i++) {
		if (st[i].fd == -1)
			continue;
		if (st[i].write && st[i].off >= st[i].buf->len) {
			for (fed = 0, j = 0; j < n; j++)
				if (!st[j].write && st[j].fd != -1 &&
				    st[j].relay_to == (int)i)
					fed = 1;
			if (!fed)
				close_stream(&st[i]);
			continue;
		}
		/* Back-pressure: a relayed reader waits for its writer. */
		if (!st[i].write && st[i].relay_to >= 0 &&
		    st[st[i].relay_to].buf->len - st[st[i].relay_to].off >
		    (1 << 20))
			continue;
		pfd[np].events = st[i].write ? POLLOUT : POLLIN;
		pfd[np].fd = st[i].fd;
		pfd[np].revents = 0;
		idx[np++] = i;
	}
	return np;
}

/* Write what stream k has; a reader gone away means discard. */
static void
stream_write(struct spawn_stream *st, size_t n, size_t k)
{
	struct spawn_stream	*s = &st[k];
	ssize_t			 r;
	size_t			 i;

	r = write(s->fd, s->buf->data + s->off, s->buf->len - s->off);
	if (r > 0) {
		s->off += (size_t)r;
		if (s->off == s->buf->len && s->off > (1 << 16)) {
			buf_reset(s->buf);
			s->off = 0;
		}
	} else if (r == -1 && errno != EAGAIN && errno != EINTR) {
		close_stream(s);
		for (i = 0; i < n; i++)
			if (st[i].relay_to == (int)k)
				st[i].relay_to = -2;
	}
}

/* Read what stream k has; 1 if it is a stop_on_data stream with data,
 * -1 if it could not be read (errno set): what was read is not all. */
static int
stream_read(struct spawn_stream *st, size_t k)
{
	struct spawn_stream	*s = &st[k];
	ssize_t			 r;
	int			 saved;

	r = buf_read(s->buf, s->fd, 65536);
	if (r == -1 && errno != EAGAIN && errno != EINTR) {
		saved = errno;
		close_stream(s);
		errno = saved;
		return -1;
	}
	if (r == 0)
		close_stream(s);
	else if (r > 0 && s->stop_on_data)
		return 1;
	else if (r > 0 && s->relay_to >= 0) {
		buf_add(st[s->relay_to].buf, s->buf->data, s->buf->len);
		buf_reset(s->buf);
	} else if (r > 0 && s->relay_to == -2)
		buf_reset(s->buf);
	return 0;
}

int
spawn_io(struct spawn_stream *st, size_t n, const struct spawn_idle *id)
{
	struct pollfd	*pfd;
	size_t		 i, j, np, *idx;
	int		 ret = 0, r, saved;

	pfd = xreallocarray(NULL, n + 1, sizeof(*pfd));
	idx = xreallocarray(NULL, n + 1, sizeof(*idx));
	for (i = 0; i < n; i++)
		if (st[i].write && st[i].fd != -1)
			(void)fcntl(st[i].fd, F_SETFL,
			    fcntl(st[i].fd, F_GETFL) | O_NONBLOCK);
	while (ret == 0 && (np = poll_set(st, n, pfd, idx)) > 0) {
		pfd[np].fd = sig_fd();
		pfd[np].events = POLLIN;
		pfd[np].revents = 0;
		if (poll(pfd, np + (sig_fd() != -1), -1) == -1 &&
		    errno != EINTR) {
			ret = -1;
			break;
		}
		sig_drain();
		if (sig_pending()) {
			errno = EINTR;
			ret = -1;
			break;
		}
		idle(id);
		for (j = 0; j < np; j++) {
			if (pfd[j].revents == 0)
				continue;
			if (st[idx[j]].write)
				stream_write(st, n, idx[j]);
			else if ((r = stream_read(st, idx[j])) == -1) {
				ret = -1;
				break;
			} else if (r == 1)
				ret = 1;
		}
	}
	saved = errno;
	free(pfd);
	free(idx);
	errno = saved;
	return ret;
}
