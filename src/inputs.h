/*
 * What a verdict depends on outside the tree it verifies, for the verdict
 * cache's key (cache.h): everything, unless it is known, and written down
 * here, not to be.
 *
 *	char *d = inputs_settings(&repo, &nested);
 *		the SHA-256, in hex digits (the caller frees), of the
 *		settings of every repository a copy is made of: the
 *		top one (repo) and each in nested (the working trees of
 *		the repositories nested in it, as source.h's
 *		source_nested() lists them), in that order -- for each,
 *		every setting git config lists for it (every scope:
 *		system, global, local, worktree, the files they include,
 *		the environment's and the command line's), with where it
 *		was set, but those inputs_excluded() names; and the
 *		content of every attributes file it reads (convert.h's
 *		convert_digest(): info/attributes, core.attributesFile or
 *		the global one, the system's).  NULL if git could not say
 *		(said why)
 *	char *id = inputs_identity();	"uid gid g1,g2,...": who runs the
 *		steps, with the supplementary groups, sorted (the caller
 *		frees)
 *	const char *why = inputs_excluded(key);	why a setting (as git
 *		config lists it: "forge.logsize") is left out of the key,
 *		or NULL: it is in
 *
 * forge(1)'s CACHE section says what is in, and what is not.
 */
#ifndef INPUTS_H
#define INPUTS_H

struct repo;
struct strv;

char		*inputs_settings(const struct repo *, const struct strv *);
char		*inputs_identity(void);
const char	*inputs_excluded(const char *);

#endif /* INPUTS_H */
