/*
 * forge's settings, all read through git config.
 *
 *	struct settings c;
 *	settings_init(&c);		the defaults
 *	switch (settings_load(&c, &repo, from)) {
 *	case -1:	a bad value, named: exit(EXIT_USAGE)
 *	case -2:	git could not read them (said why): exit(EXIT_FORGE)
 *	}
 *	... c.verify, c.timeout_ms ...
 *	settings_free(&c);
 *
 * Every forge.* key of the repository's configuration (system, global,
 * local and worktree, as git merges them) is read with one git config
 * call; a .forgeconfig file at the top of the tree to be verified, in
 * git-config syntax, supplies defaults that any of those override.  That
 * tree is the working tree's (from NULL: the file on disk, tracked or
 * not), the index's (from ":", what git commit would record) or a
 * commit's (from its id): a .forgeconfig the working tree has but that
 * tree has not never applies to it.  For the multi-valued forge.verify
 * and forge.setup, the list from git config replaces the one from
 * .forgeconfig as a whole, and an empty value clears what came before
 * it; verify_from and setup_from say where the list was set.
 *
 * forge.cacheEnv names the environment variables the verdict cache keys
 * on (cache.h): each value adds names (PATH CC, or LC_* for every
 * variable that begins so) to settings_cache_env_default()'s, and an
 * empty value clears what came before it.
 *
 * forge.containWritable, which weakens containment, and
 * forge.containMethod, which only this machine can answer, are read from
 * git config alone: a .forgeconfig that sets them is warned about and
 * ignored.
 *
 * Colour is the user's, read from git config alone (never .forgeconfig):
 * color.forge, else color.ui, as color.h says; a value git would not
 * take is warned about and ignored.
 *
 * Each setting is one row of settings.c's table: its name, the type of
 * its value (a boolean, a whole number in a range, a duration, a size,
 * a choice, a list), its field, its default and who may set it.
 * settings_init() takes the defaults from the rows, settings_apply()
 * reads the values by them, and git config is asked for the keys they
 * name: a new setting is a row, a field, and its lines in forge(1).
 * The struct owns its strings and lists.
 */
#ifndef SETTINGS_H
#define SETTINGS_H

#include <stddef.h>

#include "buf.h"
#include "strv.h"

struct repo;

/* forge.logSize and forge.logTotal: each run's output kept, and all. */
#define DEFAULT_LOG_SIZE	(2LL << 20)
#define DEFAULT_LOG_TOTAL	(64LL << 20)
#define DEFAULT_REUSE_COPIES	2
/* forge.reuseExpiry: copies forge keeps (kept by --keep, or for reuse)
 * that no run has used for this long go at forge gc. */
#define DEFAULT_REUSE_EXPIRY_MS	(7LL * 24 * 60 * 60 * 1000)
/* forge.copyThreshold: a changed file larger is copied whole, and its
 * blob not written (bigfile.h). */
#define DEFAULT_COPY_THRESHOLD	(1LL << 20)
#define REUSE_EXPIRY_NEVER	(-1LL)

/* forge.keep and --keep: when a run leaves its copy. */
enum keep {
	KEEP_NEVER,
	KEEP_FAILURE,		/* after a FAIL */
	KEEP_ALWAYS		/* after a PASS or a FAIL */
};

struct settings {
	struct strv	 verify;	/* forge.verify */
	struct strv	 setup;		/* forge.setup: run first in a
					   fresh copy */
	struct strv	 setup_inputs;	/* forge.setupInputs: the files
					   an incremental copy's setup
					   runs again for (glob pathspecs) */
	int		 isolated;	/* forge.isolated: 0 or 1 */
	int		 reuse;		/* forge.reuse */
	int		 incremental;	/* forge.incremental */
	int		 reuse_copies;	/* forge.reuseCopies */
	int		 cache;		/* forge.cache: 0 or 1 */
	int		 audit;		/* forge.audit: 0 none, 1 every fast
					   run, N one in N */
	int		 clone;		/* forge.isolation: 1 for clone */
	long long	 refs_expiry_ms; /* forge.refsExpiry */
	long long	 timeout_ms;	/* forge.timeout: 0 none */
	long long	 grace_ms;	/* forge.killAfter */
	int		 threshold;	/* forge.breakerThreshold: 0 off */
	long long	 timeline_max;	/* forge.timelineMaxSize */
	long long	 log_size;	/* forge.logSize: a run's log; 0
					   keeps none */
	long long	 log_total;	/* forge.logTotal: all the logs */
	int		 keep;		/* forge.keep: enum keep */
	long long	 reuse_expiry_ms; /* forge.reuseExpiry, or
					   REUSE_EXPIRY_NEVER */
	long long	 copy_threshold; /* forge.copyThreshold: a changed
					   file larger is copied whole */
	int		 map_paths;	/* forge.mapPaths: the copy's paths
					   in the steps' output named as the
					   working tree's: 0 or 1 */
	int		 color;		/* COLOR_*: color.forge, else
					   color.ui, else auto */
	int		 color_forge;	/* private: as set, or -1 */
	int		 color_ui;	/* private: as set, or -1 */
	int		 contain;	/* forge.contain: 0 or 1 */
	struct strv	 contain_writable; /* forge.containWritable: git
					   config alone, never .forgeconfig */
	struct strv	 cache_env;	/* forge.cacheEnv */
	char		*verify_from;	/* where forge.verify was set: "git
					   config", ".forgeconfig" (the
					   working tree's), ":.forgeconfig"
					   (the index's), "<commit>:
					   .forgeconfig"; NULL: nowhere */
	char		*setup_from;	/* the same, of forge.setup */
	int		 contain_method; /* forge.containMethod: contain.h's
					   CONTAIN_METHOD_*; git config
					   alone */
	struct buf	 core;		/* core.fileMode, sparseCheckout,
					   autocrlf and attributesFile, as
					   git config -z lists them: how a
					   copy is made (snapshot.c) */
};

void	settings_init(struct settings *);
/* Read the settings into c, which settings_init() made. */
int	settings_load(struct settings *, const struct repo *, const char *);
/* forge.cacheEnv's names when nothing sets it. */
void	settings_cache_env_default(struct strv *);
/* Apply `git config -z --get-regexp` output; origin names it in errors.
 * verify_set tells whether this layer set forge.verify. */
int	settings_apply(struct settings *, const char *, size_t, const char *,
	    int *);
void	settings_free(struct settings *);
/* git's notion of a boolean: 1, 0, or -1 if it is none. */
int	settings_bool(const char *);
/* A forge.audit or FORGE_AUDIT value: a boolean (1 or 0), or a whole
 * number N up to AUDIT_MAX (one fast run in N); -1 if it is neither. */
#define AUDIT_MAX	1000000
int	settings_audit(const char *);
/* A forge.keep or --keep= value: never, failure or always (a boolean
 * is always or never); -1 if it is none. */
int	settings_keep(const char *);
/* A forge.reuseExpiry value: a duration ("7d", "12h"), or "never"
 * (REUSE_EXPIRY_NEVER); -2 if it is neither. */
long long settings_reuse_expiry(const char *);

#endif /* SETTINGS_H */
