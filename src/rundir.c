/* The journaled private directory of a run: scratch space and the copy. */
#include "config.h"

#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cleanup.h"
#include "fs.h"
#include "fs_copy.h"
#include "fs_mount.h"
#include "fs_remove.h"
#include "fs_vis.h"
#include "journal_reclaim.h"
#include "rundir.h"
#include "sig.h"
#include "xmalloc.h"

enum { RD_NEW, RD_LIVE, RD_GONE, RD_KEPT, RD_PARKED };

/*
 * $TMPDIR, resolved: git records a worktree by its real path, and the
 * journal must name the copy the same way to find its registration.
 */
char *
rundir_tmpdir(void)
{
	const char	*t = getenv("TMPDIR");
	char		*d, *real;
	size_t		 n;

	if (t == NULL || *t == '\0')
		t = "/tmp";
	d = fs_path_absolute(t);
	if ((real = realpath(d, NULL)) != NULL) {
		free(d);
		d = real;
	}
	n = strlen(d);
	while (n > 1 && d[n - 1] == '/')
		d[--n] = '\0';
	return d;
}

static int
check_tmpdir(const char *d)
{
	struct stat	st;

	if (stat(d, &st) == -1) {
		warn("TMPDIR %s", fs_vis(d));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		warnx("TMPDIR %s is not a directory", fs_vis(d));
		return -1;
	}
	if (access(d, W_OK | X_OK) == -1) {
		warn("TMPDIR %s is not writable", fs_vis(d));
		return -1;
	}
	return 0;
}

static void
on_exit_remove(void *arg)
{
	struct rundir	*rd = arg;

	if (rd->state == RD_LIVE)
		(void)rundir_remove(rd);
}

int
rundir_open(struct rundir *rd, const char *common)
{
	char	*tmp, *mark, *line;
	ssize_t	 n = 0;
	int	 fd;

	memset(rd, 0, sizeof(*rd));
	rd->journal.fd = -1;
	rd->topfd = -1;
	journal_new_run_id(rd->run, sizeof(rd->run));
	tmp = rundir_tmpdir();
	if (check_tmpdir(tmp) == -1) {
		free(tmp);
		return -1;
	}
	rd->top = xasprintf("%s/forge-%s", tmp, rd->run);
	free(tmp);
	rd->scratch = xasprintf("%s/%s", rd->top, JOURNAL_SCRATCH);
	rd->objects = xasprintf("%s/objects", rd->scratch);
	rd->blobs = xasprintf("%s/blobs", rd->scratch);
	rd->blobs_last = xasprintf("%s/blobs.last", rd->scratch);
	rd->blobs_copy = xasprintf("%s/blobs.copy", rd->scratch);
	rd->carry = xasprintf("%s/carry", rd->scratch);
	/* Recorded first: a run killed from here on leaves a record. */
	if (journal_open(&rd->journal, common, rd->run, rd->top) == -1)
		return -1;
	/* Inherited by every git and command the run starts. */
	if (setenv(JOURNAL_ENV, rd->run, 1) == -1) {
		warn("setenv");
		journal_close(&rd->journal, 1);
		return -1;
	}
	rd->state = RD_LIVE;
	rd->cleanup = cleanup_push(on_exit_remove, rd);
	sig_test_stall("journal");
	if (mkdir(rd->top, 0700) == -1) {
		warn("cannot create %s", fs_vis(rd->top));
		goto fail;
	}
	rd->made = 1;
	/* Held to know it again: something mounted over TMPDIR later
	 * must not make it look gone. */
	rd->topfd = open(rd->top, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (mkdir(rd->scratch, 0700) == -1) {
		warn("cannot create %s", fs_vis(rd->scratch));
		goto fail;
	}
	if (mkdir(rd->objects, 0700) == -1) {
		warn("cannot create %s", fs_vis(rd->objects));
		goto fail;
	}
	/* Made, but not yet marked as the run's. */
	sig_test_stall("scratch");
	/* No fsync: after a power cut, nothing of the run is running. */
	mark = xasprintf("%s/%s", rd->scratch, JOURNAL_MARK);
	line = xasprintf("%s\n", rd->run);
	fd = open(mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
	    0600);
	if (fd == -1 || (n = write(fd, line, strlen(line))) !=
	    (ssize_t)strlen(line)) {
		if (fd != -1 && n >= 0)
			errno = EIO;	/* a short write says nothing */
		warn("cannot create %s", fs_vis(mark));
		if (fd != -1)
			close(fd);
		free(mark);
		free(line);
		goto fail;
	}
	close(fd);
	free(mark);
	free(line);
	/* After the mark: a run killed before it leaves no more than a
	 * reclaim removes without one (journal_reclaim.c). */
	if (mkdir(rd->blobs, 0700) == -1 || mkdir(rd->blobs_last, 0700) == -1 ||
	    mkdir(rd->blobs_copy, 0700) == -1) {
		warn("cannot create the blob directories in %s",
		    fs_vis(rd->scratch));
		goto fail;
	}
	return 0;
fail:
	(void)rundir_remove(rd);
	return -1;
}

/* mkdir, and a directory already there is as good. */
static int
mkdir_ok(const char *path)
{
	return mkdir(path, 0700) == 0 || errno == EEXIST ? 0 : -1;
}

/*
 * The objects a carried index keeps: the trees of the directories that
 * changed, each run's added to the last's (the blobs are another
 * directory's, kept one run: clear_scratch()).  Let go of past a bound;
 * and a large file there, which forge did not put there (or a tree of a
 * huge directory, which the index can do without: git takes a tree of
 * it as written only if it has it), never kept at all.
 */
#define KEEP_OBJECTS	16384
#define KEEP_BYTES	(256LL << 20)
#define KEEP_LARGEST	(1LL << 20)

struct tally {
	size_t		count;
	long long	bytes;
};

/*
 * Does the directory name under fd hold only what forge puts there:
 * regular files of one link, and with dirs, directories of them (two
 * hex digits, as git's fan-out)?  A command can reach the scratch space;
 * what it put there is not kept, least of all a symlink that git or
 * forge would follow out of it, or a hard link to a file elsewhere (git
 * sets the times of an object it finds, to keep it).  With t, the files
 * are counted, those past KEEP_LARGEST removed.
 */
static int
only_ours(int fd, const char *name, int dirs, struct tally *t)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	int		 dfd, ok = 1;

	if ((dfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return 0;
	}
	while (ok && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			ok = 0;
		else if (S_ISREG(st.st_mode)) {
			if (st.st_nlink != 1)
				ok = 0;
			else if (t == NULL)
				continue;
			else if (st.st_size > KEEP_LARGEST)
				(void)unlinkat(dirfd(d), de->d_name, 0);
			else {
				t->count++;
				t->bytes += (long long)st.st_size;
			}
		} else if (!dirs || !S_ISDIR(st.st_mode))
			ok = 0;
		else
			ok = strlen(de->d_name) == 2 &&
			    isxdigit((unsigned char)de->d_name[0]) &&
			    isxdigit((unsigned char)de->d_name[1]) &&
			    only_ours(dirfd(d), de->d_name, 0, t);
	}
	closedir(d);
	return ok;
}

/*
 * Empty the scratch space a run before left, but for the run's mark
 * and what it left for this one: with it, the trees its indexes name
 * (git takes a tree of the index as written only if it has it), and
 * its blobs, moved to blobs.last for this run's git to find (a file it
 * looks at again and finds unchanged is not written again); the blobs
 * of the run before that go.
 */
static int
clear_scratch(struct rundir *rd)
{
	struct dirent	*de;
	struct tally	 t;
	DIR		*d;
	int		 fd, ret = 0, carry, last;

	if ((fd = open(rd->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	/* With a file system mounted below (or no way to tell), nothing is
	 * kept, and nothing removed but by fs_remove_at(), which does not
	 * cross into one. */
	memset(&t, 0, sizeof(t));
	carry = fs_mount_below(rd->scratch, NULL) == 0 &&
	    only_ours(fd, "carry", 0, NULL) &&
	    only_ours(fd, "objects", 1, &t) && t.count < KEEP_OBJECTS &&
	    t.bytes < KEEP_BYTES;
	last = carry && only_ours(fd, "blobs", 1, NULL) &&
	    fs_remove_at(fd, "blobs.last") == 0 &&
	    renameat(fd, "blobs", fd, "blobs.last") == 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    strcmp(de->d_name, JOURNAL_MARK) == 0 ||
		    (carry && (strcmp(de->d_name, "carry") == 0 ||
		    strcmp(de->d_name, "objects") == 0)) ||
		    (last && strcmp(de->d_name, "blobs.last") == 0))
			continue;
		if (fs_remove_at(dirfd(d), de->d_name) == -1)
			ret = -1;
	}
	closedir(d);
	if (ret == 0 && (mkdir_ok(rd->objects) == -1 ||
	    mkdir_ok(rd->blobs) == -1 || mkdir_ok(rd->blobs_last) == -1 ||
	    mkdir_ok(rd->blobs_copy) == -1))
		ret = -1;
	return ret;
}

int
rundir_adopt(struct rundir *rd, struct journal *j,
    const struct journal_entry *e)
{
	memset(rd, 0, sizeof(*rd));
	rd->topfd = -1;
	rd->journal = *j;
	j->fd = -1;
	j->path = NULL;
	strlcpy(rd->run, e->run, sizeof(rd->run));
	rd->top = xstrdup(e->top);
	rd->scratch = xasprintf("%s/%s", rd->top, JOURNAL_SCRATCH);
	rd->objects = xasprintf("%s/objects", rd->scratch);
	rd->blobs = xasprintf("%s/blobs", rd->scratch);
	rd->blobs_last = xasprintf("%s/blobs.last", rd->scratch);
	rd->blobs_copy = xasprintf("%s/blobs.copy", rd->scratch);
	rd->carry = xasprintf("%s/carry", rd->scratch);
	if (e->repos.n > 0)
		strv_pushv(&rd->commons, e->repos.v);
	if (setenv(JOURNAL_ENV, rd->run, 1) == -1) {
		warn("setenv");
		journal_close(&rd->journal, 0);
		return -1;
	}
	rd->state = RD_LIVE;
	rd->made = 1;
	rd->cleanup = cleanup_push(on_exit_remove, rd);
	rd->topfd = open(rd->top, O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (rd->topfd == -1 || clear_scratch(rd) == -1) {
		warn("cannot clear %s", fs_vis(rd->scratch));
		(void)rundir_remove(rd);
		return -1;
	}
	return 0;
}

int
rundir_park(struct rundir *rd, const struct journal_reuse *note)
{
	int	fd;

	if (rd->state != RD_LIVE)
		return -1;
	/* The last run's blobs served this run's proof, which is over:
	 * a parked copy keeps its own run's alone. */
	if (rd->topfd != -1 && (fd = openat(rd->topfd, JOURNAL_SCRATCH,
	    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1) {
		(void)fs_remove_at(fd, "blobs.last");
		close(fd);
	}
	/* Still the run's: a death here leaves it to the reclaim. */
	sig_test_stall("park");
	if (journal_note_reuse(&rd->journal, note) == -1)
		return -1;
	/* Parked, and still locked: a death here leaves it parked. */
	sig_test_stall("parked");
	journal_close(&rd->journal, 0);
	rd->state = RD_PARKED;
	return 0;
}

int
rundir_parked(const struct rundir *rd)
{
	return rd->state == RD_PARKED;
}

int
rundir_note_repo(struct rundir *rd, const char *common)
{
	if (journal_note_repo(&rd->journal, common) == -1)
		return -1;
	strv_push(&rd->commons, common);
	return 0;
}

int
rundir_note_child(struct rundir *rd, pid_t pid)
{
	return journal_note_child(&rd->journal, pid);
}

char *
rundir_index(struct rundir *rd, const char *index)
{
	char	*copy;

	copy = xasprintf("%s/index.%d", rd->scratch, rd->nindex++);
	/* No index at all reads as an empty one, here as there. */
	if (fs_copy_file(index, copy) == -1 && errno != ENOENT) {
		warn("cannot copy the index %s", fs_vis(index));
		free(copy);
		return NULL;
	}
	return copy;
}

/*
 * Is the top that the path names still the directory this run made?  A
 * file system mounted over TMPDIR, or a rename, would hide it: then it
 * must neither count as gone nor be mistaken for another one.
 */
static int
in_reach(const struct rundir *rd, struct strv *left)
{
	struct stat	made, now;

	if (rd->topfd == -1 || fstat(rd->topfd, &made) == -1)
		return 1;
	if (lstat(rd->top, &now) == 0) {
		if (now.st_dev == made.st_dev && now.st_ino == made.st_ino)
			return 1;
		if (made.st_nlink == 0) {
			/* Removed, and something else took the name. */
			strv_pushf(left, "%s is not the directory this run "
			    "made", fs_vis(rd->top));
			return 0;
		}
	} else if (made.st_nlink == 0)
		return 1;		/* removed: nothing to do */
	strv_pushf(left, "%s is out of reach: something was mounted over "
	    "its directory, or it was moved", fs_vis(rd->top));
	return 0;
}

int
rundir_remove(struct rundir *rd)
{
	struct journal_entry	e;
	struct strv		left = STRV_INIT;
	size_t			i;
	int			ret = -1;

	if (rd->state != RD_LIVE)
		return 0;
	if (!rd->made) {
		/* Nothing was made: whatever has the name is not ours. */
		journal_close(&rd->journal, 1);
		rd->state = RD_GONE;
		return 0;
	}
	memset(&e, 0, sizeof(e));
	e.run = rd->run;
	e.top = rd->top;
	e.repos = rd->commons;
	if (in_reach(rd, &left) && (ret = journal_reclaim_copy(&e, 1,
	    &left)) == 0) {
		journal_close(&rd->journal, 1);
	} else {
		/* The record stays: forge gc tries again later. */
		for (i = 0; i < left.n; i++)
			warnx("%s: left in place, forge gc will try again",
			    left.v[i]);
		journal_close(&rd->journal, 0);
	}
	strv_free(&left);
	rd->state = RD_GONE;
	return ret;
}

int
rundir_keep(struct rundir *rd, const char *copy)
{
	if (rd->state != RD_LIVE)
		return -1;
	(void)journal_note_kept(&rd->journal, copy);
	journal_close(&rd->journal, 0);
	rd->state = RD_KEPT;
	return 0;
}

int
rundir_kept(const struct rundir *rd)
{
	return rd->state == RD_KEPT;
}

void
rundir_free(struct rundir *rd)
{
	if (rd->cleanup != NULL)
		cleanup_pop(rd->cleanup, 1);
	if (rd->topfd != -1)
		close(rd->topfd);
	free(rd->top);
	free(rd->scratch);
	free(rd->objects);
	free(rd->blobs);
	free(rd->blobs_last);
	free(rd->blobs_copy);
	free(rd->carry);
	strv_free(&rd->commons);
	memset(rd, 0, sizeof(*rd));
	rd->journal.fd = -1;
	rd->topfd = -1;
}
