/* The verdict cache as a run uses it: its key, lookup and store. */
#include "config.h"

#include <err.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "color.h"
#include "contain.h"
#include "convert.h"
#include "forge.h"
#include "fs.h"
#include "fs_vis.h"
#include "git.h"
#include "inputs.h"
#include "source.h"
#include "timeutil.h"
#include "verify_event.h"
#include "verify_int.h"
#include "xmalloc.h"

/*
 * The method that contains the run, for the cache key: the one taken,
 * once the plan is made; before (a lookup), the one it would take --
 * forced by forge.containMethod, or what auto finds on this machine.
 */
static const char *
contain_how(struct run *r)
{
	char	why[256];

	if (!r->mode.contain && !r->mode.no_network)
		return NULL;
	if (r->have_plan)
		return contain_method(&r->plan);
	if (r->key.contain_guess == NULL)
		r->key.contain_guess = r->ctx->cfg.contain_method !=
		    CONTAIN_METHOD_AUTO ?
		    contain_method_name(r->ctx->cfg.contain_method) :
		    contain_probe(CONTAIN_METHOD_NAMESPACES, why,
		    sizeof(why)) == 0 ? "namespaces" : "landlock";
	return r->key.contain_guess;
}

/* Where a step runs, relative to the top: a configured one at the top,
 * a command where forge was started. */
static char *
step_dir(const struct run *r, const struct step *s)
{
	const char	*prefix = r->ctx->repo.prefix;

	if (s->shell || *prefix == '\0')
		return xstrdup("");
	return xstrndup(prefix, strlen(prefix) - 1);
}

/*
 * What the cache knows a verification by: every input of the run that
 * cache.h has a field for, set here and nowhere else.
 */
static char *
cache_key_of(struct run *r, const char *tree)
{
	struct cache_in		 in = CACHE_IN_INIT;
	struct cache_step	*cs;
	const struct settings	*cfg = &r->ctx->cfg;
	char			*key;
	size_t			 i;

	in.version = PACKAGE_VERSION;
	in.git = git_version_string();
	in.mode = run_mode(r);
	in.tree = tree;
	/* What the copy (or the working tree) has checked out: its history
	 * is the command's to read too. */
	in.head = r->source.kind == SOURCE_WORKTREE ? r->ctx->repo.head :
	    r->source.commit;
	in.index = r->key.have_ss ? r->key.ss.staging : NULL;
	in.convert = r->key.convert;
	in.as_is = r->key.as_is;
	in.clone = r->mode.clone;
	in.incremental = r->mode.isolated && r->mode.incremental;
	in.contain = r->mode.contain;
	in.no_network = r->mode.no_network;
	in.contain_how = contain_how(r);
	in.writable = &cfg->contain_writable;
	in.timeout_ms = r->mode.timeout_ms;
	in.identity = r->key.identity;
	in.settings = r->key.settings;
	in.steps_from = r->mode.steps_from;
	in.setup_from = r->mode.isolated && cfg->setup.n > 0 ? cfg->setup_from :
	    NULL;
	in.env = &cfg->cache_env;
	/* What the steps' files are made with, and what the copy's files
	 * take from the working tree as they are. */
	in.umask = (long)fs_umask();
	in.modes = r->key.have_ss ? r->key.ss.modes : NULL;
	cs = xcalloc(r->nsteps > 0 ? r->nsteps : 1, sizeof(*cs));
	for (i = 0; i < r->nsteps; i++) {
		cs[i].argv = &r->steps[i].argv;
		cs[i].dir = step_dir(r, &r->steps[i]);
		cs[i].setup = r->steps[i].setup;
	}
	in.steps = cs;
	in.nsteps = r->nsteps;
	key = cache_key(&in);
	for (i = 0; i < r->nsteps; i++)
		free((char *)cs[i].dir);
	free(cs);
	return key;
}

/* Every setting of the repositories the copy is made of: the top one,
 * and those a tree's submodules are (a working state that has any is
 * never cached). */
static char *
run_settings(struct run *r)
{
	struct strv	 dirs = STRV_INIT;
	char		*d = NULL;

	if (r->source.kind == SOURCE_WORKTREE ||
	    source_nested(&r->source, &r->ctx->repo, &dirs) == 0)
		d = inputs_settings(&r->ctx->repo, &dirs);
	strv_free(&dirs);
	return d;
}

/*
 * A working state's tree id shows a nested repository's commit, not its
 * changes, and every entry flagged skip-worktree (a sparse checkout's
 * outside its patterns, or one flagged by hand), where its copy has the
 * file only if the working tree does: there, it does not say what was
 * verified.  And what its index stages, which the key holds.  Decided
 * once.
 * Nor does any tree id say how git converts a blob's bytes, which the
 * key holds too (the tree's own attributes files are in its id); where
 * git may convert, the working tree's bytes are not the blobs', which in
 * place are what the command reads, and in a copy, what it takes as they
 * are.  Decided once.
 */
int
verify_cache_usable(struct run *r)
{
	struct git	 g;
	const char	*why = NULL;
	int		 on;

	if (!r->mode.cache || r->key.cache_decided)
		return r->mode.cache;
	r->key.cache_decided = 1;
	if (r->source.kind != SOURCE_WORKTREE) {
		repo_git(&r->ctx->repo, &g);
		g.index = NULL;
		if ((r->key.convert = convert_digest(&g, r->ctx->repo.common,
		    NULL, &on)) == NULL)
			why = "git could not say how it converts files";
	} else if (source_state_read(&r->key.ss, &r->ctx->repo,
	    &r->copy.rd) == -1)
		why = "the index could not be read";
	else {
		r->key.have_ss = 1;
		if (r->key.ss.nested)
			why = "the working state holds nested repositories, "
			    "whose changes its tree id does not show";
		else if (r->mode.isolated && r->key.ss.sparse)
			why = "entries flagged skip-worktree (a sparse "
			    "checkout's, or set by hand) have a file in the "
			    "copy only where the working tree has one, while "
			    "its tree id holds them all";
		else if (r->key.ss.convert == NULL)
			why = "git could not say how it converts files";
		else if (!r->mode.isolated && r->key.ss.converts)
			why = "git may convert this working tree's files "
			    "(attributes, core.autocrlf), and in place their "
			    "tree id cannot tell the bytes the command reads";
		else if (r->key.ss.converts &&
		    (r->key.as_is = source_as_is(&r->key.ss,
		    &r->ctx->repo, &r->copy.rd)) == NULL)
			why = "the files a copy takes as they are could not "
			    "be read";
		else
			r->key.convert = xstrdup(r->key.ss.convert);
	}
	if (why == NULL && (r->key.settings = run_settings(r)) == NULL)
		why = "git could not list the settings of every repository "
		    "the copy is made of";
	if (why == NULL)
		r->key.identity = inputs_identity();
	if (why != NULL) {
		fprintf(stderr, "forge: not using the verdict cache: %s\n",
		    why);
		r->mode.cache = 0;
	}
	return r->mode.cache;
}

/* Has this tree passed these steps before?  1: yes, r->key.cached_at says
 * when; 0: run them. */
int
verify_cache_check(struct run *r, const char *tree)
{
	char	*key;
	int	 hit;

	if (!verify_cache_usable(r) || tree == NULL)
		return 0;
	free(r->key.cache_tree);
	r->key.cache_tree = xstrdup(tree);
	key = cache_key_of(r, tree);
	hit = cache_lookup(&r->ctx->state, key, &r->key.cached_at) == 1;
	free(key);
	/* A PASS of the whole tree, where this copy would not be whole:
	 * the run is of what it has. */
	if (hit && r->source.kind != SOURCE_WORKTREE &&
	    source_whole(&r->source, &r->ctx->repo) != 1) {
		fprintf(stderr, "forge: not using the cached verdict: it is "
		    "of the whole tree, which this copy would not hold\n");
		free(r->key.cached_at);
		r->key.cached_at = NULL;
		hit = 0;
	}
	return hit;
}

/* After a PASS of the tree looked up (in a copy, the tree proved too),
 * remember it -- unless the copy left part of it out. */
void
verify_cache_remember(struct run *r)
{
	char	*key, at[RFC3339_LEN];

	if (!r->mode.cache || r->res.verdict != VERDICT_PASS ||
	    !r->res.recorded || r->key.cache_tree == NULL ||
	    r->res.tree == NULL ||
	    strcmp(r->key.cache_tree, r->res.tree) != 0 || partial(r))
		return;
	timeutil_rfc3339(at, r->res.start);
	key = cache_key_of(r, r->res.tree);
	(void)cache_store(&r->ctx->state, key, at, r->res.tree, CACHE_MAX);
	free(key);
}

/* A cached PASS an audit found wrong: not replayed again. */
void
verify_cache_forget(struct run *r)
{
	char	*key;

	if (!r->mode.cache || r->key.cache_tree == NULL)
		return;
	key = cache_key_of(r, r->key.cache_tree);
	if (cache_drop(&r->ctx->state, key) == -1)
		warnx("the cached verdict could not be dropped");
	free(key);
}

/* A cached PASS: say so, and record it as what it is. */
int
verify_cache_replay(struct run *r)
{
	struct buf	 ev = BUF_INIT;
	char		*what, now[RFC3339_LEN];
	int		 color;

	timeutil_rfc3339(now, r->res.start);
	verify_event_cached(r, &ev, now);
	r->ctx->state.deadline_ms = 0;
	if (context_event(r->ctx, &ev) == -1)
		warnx("the cached verdict could not be recorded");
	buf_free(&ev);
	what = verify_steps_display(r);
	color = color_want(r->ctx->cfg.color, STDERR_FILENO);
	fprintf(stderr, "Verify: %s ... Verdict: %sPASS%s (cached: tree "
	    "%.12s, verified at %s)\n", fs_vis(what),
	    color ? color_verdict("PASS") : "", color ? COLOR_RESET : "",
	    r->key.cache_tree, r->key.cached_at);
	free(what);
	return 0;
}
