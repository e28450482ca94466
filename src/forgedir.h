/*
 * The paths of forge's own directory under the real repository's common
 * git dir, named once: no other file spells a name below it.
 *
 *	<common>/forge			forgedir_root()
 *	<common>/forge/timeline.jsonl	forgedir_timeline(): the events
 *	<common>/forge/timeline.jsonl.1	forgedir_timeline_old(): the
 *					previous one, after rotation
 *	<common>/forge/breaker.json	forgedir_breaker(): the breaker
 *	<common>/forge/lock		forgedir_lock(): flock(2)ed while
 *					the timeline or the breaker changes
 *	<common>/forge/cache.jsonl	forgedir_cache(): the verdict cache
 *	<common>/forge/logs		forgedir_logs(): the runs' output
 *	<common>/forge/copies		forgedir_copies(): the run records
 *	<common>/forge/copies/<run>	forgedir_record(): one run's record
 *	<common>/forge/refs		forgedir_refs(): the dates of the
 *	<common>/forge/refs/<run>	refs a clone's run fetched back,
 *					forgedir_refstamp(): one run's
 *	<common>/forge/reuse.lock	forgedir_reuse_lock(): flock(2)ed
 *					while a copy is parked
 *	<common>/forge/hookdirs		forgedir_hookdirs(): the directories
 *					forge hook install made
 *
 *	char *p = forgedir_logs(common);	allocated: the caller frees
 *
 * Each takes the common dir as repo.h gives it and returns the path as
 * a new string; none touches the disk.  What each file holds is said by
 * the module that keeps it (state.h, cache.h, runlog.h, journal.h,
 * clone.h, reuse.h, cmd_hook.c).
 *
 * The run records are walked in one way:
 *
 *	if (forgedir_records(common, fn, arg) == -1) ...
 *
 * calls fn(path, arg) for each name in forgedir_copies() that has no dot
 * (a dot marks a temporary file, or . and ..), in the order readdir(3)
 * gives; path is the record's, valid during the call only.  It returns
 * -1 if any call did (and goes on to the next record), else 0; a
 * directory that cannot be opened, or is not there, holds no record.
 */
#ifndef FORGEDIR_H
#define FORGEDIR_H

char	*forgedir_root(const char *);
char	*forgedir_timeline(const char *);
char	*forgedir_timeline_old(const char *);
char	*forgedir_breaker(const char *);
char	*forgedir_lock(const char *);
char	*forgedir_cache(const char *);
char	*forgedir_logs(const char *);
char	*forgedir_copies(const char *);
char	*forgedir_record(const char *, const char *);
char	*forgedir_refs(const char *);
char	*forgedir_refstamp(const char *, const char *);
char	*forgedir_reuse_lock(const char *);
char	*forgedir_hookdirs(const char *);

int	 forgedir_records(const char *, int (*)(const char *, void *),
	    void *);

#endif /* FORGEDIR_H */
