/* Reclaiming dead runs: their copies removed, what they left running ended. */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "forgedir.h"
#include "fs.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "journal.h"
#include "journal_reclaim.h"
#include "proc.h"
#include "sig.h"
#include "timeutil.h"
#include "xmalloc.h"

static int
same_boot(const struct journal_entry *e)
{
	return e->boot == NULL || *e->boot == '\0' || *proc_boot_id() == '\0' ||
	    strcmp(e->boot, proc_boot_id()) == 0;
}

static int
owner_alive(const struct journal_entry *e)
{
	/* After a reboot nothing of the run lives; a zombie is dead too. */
	return same_boot(e) && proc_alive((pid_t)e->pid, e->start);
}

/* A repository's worktree registrations, to walk; NULL, errno ENOENT,
 * when it has none. */
static DIR *
worktrees(const char *common)
{
	DIR	*d;
	char	*path;
	int	 fd, saved;

	path = xasprintf("%s/worktrees", common);
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(path);
	if (fd == -1)
		return NULL;
	if ((d = fdopendir(fd)) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
	}
	return d;
}

/* The first bytes of one of a registration's files, NUL-terminated. */
static void
read_adm(int admfd, const char *name, struct buf *b)
{
	int	fd;

	buf_reset(b);
	buf_str(b);		/* "" if there is no such file */
	if ((fd = openat(admfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) ==
	    -1)
		return;
	while (buf_read(b, fd, 4096) > 0 && b->len < 65536)
		;
	close(fd);
	buf_rtrim(b);
	buf_str(b);
}

/*
 * A registration's lock reason is what proves it forge's, once its copy
 * is gone: it goes last, and stays while anything else of it does, for
 * gc to try again (journal_reclaim_orphans(), remove_unproven()).
 */
#define REG_PROOF	"locked"

/*
 * The registration name (in the worktrees directory dfd) removed, its
 * lock reason last -- if it is still the directory seen (its device and
 * inode), which the caller found forge's: not another that took its name
 * since (1, left alone).  Where the directory itself does not go once
 * the reason has, the reason is written back: an empty directory would
 * be left that nothing proves forge's, and no later try would take it.
 * 0, or -1 with errno.
 */
static int
remove_registration(int dfd, const char *name, const struct stat *seen)
{
	struct buf	 lock = BUF_INIT;
	struct stat	 st;
	int		 afd, fd, r, e;

	sig_test_stall("unregister");
	afd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	/* No directory there now (a symlink, a file): not the one seen. */
	if (afd == -1 && (errno == ELOOP || errno == ENOTDIR))
		return 1;
	if (afd != -1 && (fstat(afd, &st) == -1 ||
	    st.st_dev != seen->st_dev || st.st_ino != seen->st_ino)) {
		close(afd);
		return 1;
	}
	if (afd != -1)
		read_adm(afd, REG_PROOF, &lock);
	if ((r = fs_remove_last_at(dfd, name, REG_PROOF)) == -1) {
		e = errno;
		if (afd != -1 && lock.len > 0 &&
		    fstatat(afd, REG_PROOF, &st, AT_SYMLINK_NOFOLLOW) == -1 &&
		    errno == ENOENT && (fd = openat(afd, REG_PROOF, O_WRONLY |
		    O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644)) != -1) {
			buf_addc(&lock, '\n');
			(void)fs_write_all(fd, lock.data, lock.len);
			close(fd);
		}
		errno = e;
	}
	if (afd != -1)
		close(afd);
	buf_free(&lock);
	return r;
}

/*
 * Does this worktree registration belong to the run's copy under top?
 * The lock reason naming the run says so (forge adds every worktree
 * locked, with that reason).  So does a gitdir below top: with by_path
 * (top is proven the run's), or with the lock reason git before 2.33
 * wrote, which forge replaces a moment later -- top's name holds the
 * run's 64-bit id.
 */
static int
reg_is_ours(int admfd, const char *top, const char *run,
    int by_path)
{
	struct buf	 gitdir = BUF_INIT, lock = BUF_INIT;
	char		*want, *tag;
	int		 below, ours;

	read_adm(admfd, "gitdir", &gitdir);
	read_adm(admfd, "locked", &lock);
	want = xasprintf("%s/", top);
	tag = xasprintf("forge run %s ", run != NULL ? run : "");
	below = strncmp(gitdir.data, want, strlen(want)) == 0;
	ours = (run != NULL && strncmp(lock.data, tag, strlen(tag)) == 0) ||
	    (below && (by_path ||
	    strcmp(lock.data, "added with --lock") == 0));
	free(want);
	free(tag);
	buf_free(&gitdir);
	buf_free(&lock);
	return ours;
}

/* Is the registration's working tree only (its gitdir file names it)?
 * NULL: any. */
static int
names(int admfd, const char *only)
{
	struct buf	gitdir = BUF_INIT;
	int		r;

	if (only == NULL)
		return 1;
	read_adm(admfd, "gitdir", &gitdir);
	r = strcmp(gitdir.data, only) == 0;
	buf_free(&gitdir);
	return r;
}

static int
remove_registrations(const char *common, const char *top, const char *run,
    int by_path, int dry, const char *only, struct strv *left)
{
	struct dirent	*de;
	struct stat	 seen;
	DIR		*d;
	int		 dfd, afd, ret = 0;

	if ((d = worktrees(common)) == NULL)
		return errno == ENOENT ? 0 : -1;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		afd = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
		if (afd == -1)
			continue;
		if (fstat(afd, &seen) == 0 &&
		    reg_is_ours(afd, top, run, by_path) && names(afd, only) &&
		    !dry && remove_registration(dfd, de->d_name, &seen) == -1) {
			strv_pushf(left, "cannot remove %s/worktrees/%s: %s",
			    fs_vis(common), fs_vis(de->d_name),
			    strerror(errno));
			ret = -1;
		}
		close(afd);
	}
	closedir(d);
	return ret;
}

int
journal_reclaim_registration(const char *common, const char *run,
    const char *copy)
{
	struct strv	 left = STRV_INIT;
	char		*only;
	int		 r;

	only = xasprintf("%s/.git", copy);
	r = remove_registrations(common, copy, run, 0, 0, only, &left);
	free(only);
	strv_free(&left);
	return r;
}

/* A record could be edited by hand: only ever remove forge's own dirs. */
static int
top_is_sane(const char *top)
{
	const char	*base;
	struct stat	 st;

	if (top == NULL || top[0] != '/' || strstr(top, "/../") != NULL)
		return 0;
	base = fs_basename(top);
	if (strncmp(base, "forge-", 6) != 0 || strlen(base) < 10)
		return 0;
	/* A symlink there is only ever unlinked, never followed. */
	if (lstat(top, &st) == 0 && !S_ISLNK(st.st_mode) &&
	    (!S_ISDIR(st.st_mode) || st.st_uid != geteuid()))
		return 0;
	return 1;
}

/*
 * Was top made by this very run?  rundir leaves the run's id in it, in a
 * directory of its own; a record written by hand cannot make another
 * directory pass this, so gc never ends processes that merely work in a
 * directory a record names.
 */
int
journal_reclaim_top_is_runs(const struct journal_entry *e)
{
	struct stat	 st;
	struct buf	 b = BUF_INIT;
	int		 fd, sfd, rfd, ours = 0;

	if (!top_is_sane(e->top))
		return 0;
	if ((fd = open(e->top, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	if (fstat(fd, &st) == 0 && st.st_uid == geteuid() &&
	    (st.st_mode & 077) == 0 &&
	    (sfd = openat(fd, JOURNAL_SCRATCH, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) != -1) {
		if ((rfd = openat(sfd, JOURNAL_MARK, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) != -1) {
			while (buf_read(&b, rfd, 256) > 0 && b.len < 256)
				;
			close(rfd);
			buf_rtrim(&b);
			ours = b.data != NULL && strcmp(b.data, e->run) == 0;
		}
		close(sfd);
	}
	close(fd);
	buf_free(&b);
	return ours;
}

/* Each repository's registrations of the run's copy. */
static int
unregister(const struct journal_entry *e, int by_path, int dry,
    struct strv *left)
{
	size_t	i;
	int	ret = 0;

	for (i = 0; i < e->repos.n; i++)
		if (remove_registrations(e->repos.v[i], e->top, e->run,
		    by_path, dry, NULL, left) == -1)
			ret = -1;
	return ret;
}

/*
 * Would the rmdirs of remove_unproven empty dir (depth 0: the top, 1:
 * its scratch space, 2: the scratch space's objects)?  Only if it holds
 * nothing but what a run makes first, itself empty.
 */
static int
unproven_empty(int pfd, const char *name, int depth)
{
	static const char	*made[] = { JOURNAL_SCRATCH, "objects" };
	struct dirent		*de;
	DIR			*d;
	int			 fd, empty = 1;

	if ((fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return errno == ENOENT;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (empty && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		empty = depth < 2 && strcmp(de->d_name, made[depth]) == 0 &&
		    unproven_empty(dirfd(d), de->d_name, depth + 1);
	}
	closedir(d);
	return empty;
}

/*
 * A directory a record names that is not proven the run's: what a run
 * killed before it left its mark could have made (empty directories, a
 * stale symlink where the copy was) goes; anything holding files stays.
 * dry: only say whether it would.
 */
static int
remove_unproven(const struct journal_entry *e, int dry, struct strv *left)
{
	struct stat	 st;
	int		 tfd, sfd;

	if (lstat(e->top, &st) == 0 && S_ISLNK(st.st_mode)) {
		if (!dry && unlink(e->top) == -1 && errno != ENOENT)
			return -1;
	} else if (lstat(e->top, &st) == 0 && dry) {
		if (!unproven_empty(AT_FDCWD, e->top, 0)) {
			warnx("would refuse to remove %s: it is not empty, "
			    "and holds no mark of forge run %s",
			    fs_vis(e->top), fs_vis(e->run));
			return -1;
		}
	} else if (lstat(e->top, &st) == 0) {
		/* What a run makes first, each reached through no symlink:
		 * one planted there is removed, never what it leads to. */
		if ((tfd = open(e->top, O_PATH | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC)) != -1) {
			if ((sfd = openat(tfd, JOURNAL_SCRATCH, O_PATH |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
				(void)unlinkat(sfd, "objects", AT_REMOVEDIR);
				close(sfd);
			}
			(void)unlinkat(tfd, JOURNAL_SCRATCH, AT_REMOVEDIR);
			close(tfd);
		}
		if (rmdir(e->top) == -1 && errno != ENOENT) {
			warnx("refusing to remove %s: it is not empty, and "
			    "holds no mark of forge run %s", fs_vis(e->top),
			    fs_vis(e->run));
			return -1;
		}
	}
	return unregister(e, 0, dry, left);
}

/*
 * journal_reclaim_copy(), or with dry, the same decisions taken and said
 * (refusals, and what would stay) without removing anything: what a
 * forge gc --dry-run lists is what forge gc does.
 */
static int
remove_copy(const struct journal_entry *e, int own, int dry,
    struct strv *left)
{
	size_t	n = left->n;
	int	ret = 0, mounts = 0;

	if (!top_is_sane(e->top)) {
		warnx("%s to remove %s: not a forge copy", dry ?
		    "would refuse" : "refusing",
		    e->top != NULL ? fs_vis(e->top) : "(no path)");
		return -1;
	}
	/* A record could be written by hand: only the run's own directory
	 * is removed with all it holds. */
	if (!own && !journal_reclaim_top_is_runs(e))
		return remove_unproven(e, dry, left);
	if (unregister(e, 1, dry, left) == -1)
		ret = -1;
	/* What a removal would leave: the mount points in the copy. */
	if (dry && (mounts = fs_mount_below(e->top, left)) == -1)
		strv_pushf(left, "cannot remove %s: %s", fs_vis(e->top),
		    strerror(errno));
	if (dry)
		return mounts != 0 ? -1 : ret;
	/* The run's mark goes last, even after the rest of the scratch
	 * space: what stays is still provably its. */
	if (fs_remove_path(e->top, JOURNAL_SCRATCH "/" JOURNAL_MARK, left) ==
	    -1) {
		if (left->n == n)
			strv_pushf(left, "cannot remove %s: %s",
			    fs_vis(e->top), strerror(errno));
		ret = -1;
	}
	return ret;
}

int
journal_reclaim_copy(const struct journal_entry *e, int own,
    struct strv *left)
{
	return remove_copy(e, own, 0, left);
}

/*
 * End what a dead run left running before its copy goes: its command's
 * process group, when its leader is provably the one recorded (same pid,
 * start time and boot), and every process of the run (started with the
 * run's JOURNAL_ENV mark) working in the run's own directory: one that
 * left the group with setsid, a git still checking out.
 */
static void
end_run(const struct journal_entry *e)
{
	long long	 until;
	char		*tag;

	/* Nothing is signalled on a record's word alone: the directory
	 * must be the run's own.  A kept copy's run ended as usual, and
	 * left nothing running: whoever works there now is the user. */
	if (e->kept != NULL || !same_boot(e) || !journal_reclaim_top_is_runs(e))
		return;
	if (e->child > 0 && proc_is((pid_t)e->child, e->child_start)) {
		(void)kill(-(pid_t)e->child, SIGKILL);
		until = timeutil_now_ms() + 2000;
		while (kill(-(pid_t)e->child, 0) == 0 &&
		    timeutil_now_ms() < until)
			usleep(5000);
	}
	tag = xasprintf("%s=%s", JOURNAL_ENV, e->run);
	(void)proc_kill_in(e->top, tag, 5000);
	free(tag);
}

void
journal_reclaim_free(struct reclaim *rc)
{
	size_t	i;

	for (i = 0; i < rc->n; i++)
		free(rc->v[i].top);
	free(rc->v);
	strv_free(&rc->kept);
	strv_free(&rc->reusable);
	strv_free(&rc->left);
	strv_free(&rc->registrations);
	memset(rc, 0, sizeof(*rc));
}

/* A record is read when nobody holds it: its run is gone.  0 and e
 * filled; 1: not to touch (alive, being written, or done by another). */
static int
read_record(int fd, const char *path, int flags, struct journal_entry *e)
{
	struct buf	text = BUF_INIT;
	struct stat	st;
	int		ret = 1;

	if (flock(fd, LOCK_EX | LOCK_NB) == -1 && errno == EWOULDBLOCK)
		return 1;		/* held: its run is alive */
	if (fstat(fd, &st) == 0 && st.st_nlink == 0)
		return 1;		/* another gc was here first */
	while (buf_read(&text, fd, 65536) > 0)
		;
	if (journal_parse(text.data != NULL ? text.data : "", text.len,
	    e) == 0) {
		/* Its last line is the last use: a park, or the keep. */
		e->last_use = fstat(fd, &st) == 0 ? st.st_mtime : 0;
		/* A record is named after its run: one that names another
		 * run is not that run's to act on. */
		if (strcmp(e->run, fs_basename(path)) == 0)
			ret = 0;
		else {
			warnx("ignoring %s: it is the record of run %s",
			    fs_vis(path), fs_vis(e->run));
			journal_entry_free(e);
		}
	} else {
		/* Created and never written: a run that died at once,
		 * before it made anything -- or one starting right now,
		 * that has yet to lock it. */
		if (!(flags & JOURNAL_DRY_RUN) && fstat(fd, &st) == 0 &&
		    st.st_mtime < time(NULL) - 60)
			(void)unlink(path);
		journal_entry_free(e);
	}
	buf_free(&text);
	return ret;
}

static void
add_reclaimed(struct reclaim *rc, const struct journal_entry *e,
    int expired)
{
	rc->v = xreallocarray(rc->v, rc->n + 1, sizeof(*rc->v));
	rc->v[rc->n].top = xstrdup(e->top);
	rc->v[rc->n].pid = e->pid;
	rc->v[rc->n].kept = e->kept != NULL;
	rc->v[rc->n].reusable = e->reuse != NULL;
	rc->v[rc->n].expired = expired;
	rc->n++;
}

/*
 * A copy left on purpose (kept, or parked for reuse) that is to stay:
 * not expired (last used before expire, if not 0: its record's last
 * line is the keep or the park) nor asked for by flags.
 */
static int
stays(const struct journal_entry *e, int flags, int expired)
{
	if (expired)
		return 0;
	if (e->kept != NULL)
		return !(flags & JOURNAL_KEPT);
	if (e->reuse != NULL)
		return !(flags & JOURNAL_REUSABLE);
	return 0;
}

/* One record of the journal: its copy goes, unless its run lives or it
 * stays. */
static int
reclaim_one(const char *path, int flags, time_t expire, struct reclaim *rc)
{
	struct journal_entry	e;
	int			fd, expired, ret = 0;

	if ((fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return 0;
	if (read_record(fd, path, flags, &e) != 0) {
		close(fd);
		return 0;
	}
	expired = (e.kept != NULL || e.reuse != NULL) && expire > 0 &&
	    e.last_use <= expire;
	if (owner_alive(&e) || stays(&e, flags, expired)) {
		if (e.kept != NULL)
			strv_push(&rc->kept, e.kept);
		else if (e.reuse != NULL)
			strv_push(&rc->reusable, e.reuse);
	} else if (flags & JOURNAL_DRY_RUN) {
		if (remove_copy(&e, 0, 1, &rc->left) == 0)
			add_reclaimed(rc, &e, expired);
		else
			ret = -1;
	} else {
		end_run(&e);
		if (journal_reclaim_copy(&e, 0, &rc->left) == 0) {
			(void)unlink(path);
			add_reclaimed(rc, &e, expired);
		} else
			ret = -1;
	}
	journal_entry_free(&e);
	close(fd);
	return ret;
}

/* What journal_reclaim() hands each record of the walk. */
struct reclaim_walk {
	int		 flags;
	time_t		 expire;
	struct reclaim	*rc;
};

static int
reclaim_record(const char *path, void *arg)
{
	struct reclaim_walk	*w = arg;

	return reclaim_one(path, w->flags, w->expire, w->rc);
}

int
journal_reclaim(const char *common, int flags, time_t expire,
    struct reclaim *rc)
{
	struct reclaim_walk	w;

	memset(rc, 0, sizeof(*rc));
	w.flags = flags;
	w.expire = expire;
	w.rc = rc;
	return forgedir_records(common, reclaim_record, &w);
}

/* The run id a registration's lock reason names, if forge wrote it. */
static int
forge_lock_run(int admfd, char *run, size_t n)
{
	struct buf	 b = BUF_INIT;
	const char	*p;
	size_t		 len;
	int		 ok = 0;

	read_adm(admfd, "locked", &b);
	if (strncmp(b.data, "forge run ", 10) == 0) {
		p = b.data + 10;
		len = strspn(p, "0123456789abcdef");
		if (len == 16 && len < n && strncmp(p + len, " pid ", 5) == 0) {
			memcpy(run, p, len);
			run[len] = '\0';
			ok = 1;
		}
	}
	buf_free(&b);
	return ok;
}

/* Is the worktree a registration points to gone from the disk?  One
 * that names no worktree at all is. */
static int
worktree_gone(int admfd)
{
	struct buf	 b = BUF_INIT;
	struct stat	 st;
	char		*slash;
	int		 gone = 1;

	read_adm(admfd, "gitdir", &b);
	if (b.data[0] == '/' && (slash = strrchr(b.data, '/')) != NULL) {
		*slash = '\0';
		gone = lstat(b.data, &st) == -1 && errno == ENOENT;
	}
	buf_free(&b);
	return gone;
}

int
journal_reclaim_orphans(const char *common, int flags, struct reclaim *rc)
{
	struct dirent	*de;
	struct stat	 st, seen;
	DIR		*d;
	char		*rec, run[32];
	int		 dfd, afd, ours, r, ret = 0;

	if ((d = worktrees(common)) == NULL)
		return errno == ENOENT ? 0 : -1;
	dfd = dirfd(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || (afd = openat(dfd, de->d_name,
		    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		/*
		 * Only forge's own, by the lock reason forge wrote; only
		 * with no record left (a record means reclaim decides);
		 * only when the copy is gone from the disk.
		 */
		ours = fstat(afd, &seen) == 0 &&
		    forge_lock_run(afd, run, sizeof(run));
		if (ours) {
			rec = forgedir_record(common, run);
			ours = lstat(rec, &st) == -1 && errno == ENOENT &&
			    worktree_gone(afd);
			free(rec);
		}
		close(afd);
		if (!ours)
			continue;
		r = flags & JOURNAL_DRY_RUN ? 0 :
		    remove_registration(dfd, de->d_name, &seen);
		if (r == -1) {
			strv_pushf(&rc->left, "cannot remove %s/worktrees/%s: "
			    "%s", fs_vis(common), fs_vis(de->d_name),
			    strerror(errno));
			ret = -1;
		} else if (r == 0)
			strv_pushf(&rc->registrations, "%s (forge run %s)",
			    fs_vis(de->d_name), run);
	}
	closedir(d);
	return ret;
}
