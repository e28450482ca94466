/*
 * NULL-terminated string vectors, for argv and environment lists.
 *
 *	struct strv v = STRV_INIT;
 *	strv_push(&v, "git"); strv_pushf(&v, "--git-dir=%s", dir);
 *	execve(v.v[0], v.v, ...);	   v.v is always NULL-terminated
 *	strv_free(&v);
 *
 * The vector owns its strings (copies are made on push) and the array.
 *
 *	strv_pool(&v);		before the first push: the vector's strings
 *				are then carved out of large blocks, freed
 *				together by strv_free() (no allocation of
 *				its own per string: for long lists)
 */
#ifndef STRV_H
#define STRV_H

#include <stddef.h>

struct strv_block;

struct strv {
	char			**v;
	size_t			  n;
	size_t			  cap;
	struct strv_block	 *pool;		/* NULL: each string its own */
};

#define STRV_INIT	{ NULL, 0, 0, NULL }

void	 strv_pool(struct strv *);
void	 strv_push(struct strv *, const char *);
void	 strv_pushn(struct strv *, const char *, size_t);
/* Push a string the vector is to own (allocated, as by xmalloc.h). */
void	 strv_take(struct strv *, char *);
void	 strv_pushf(struct strv *, const char *, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
void	 strv_pushv(struct strv *, char *const *);
void	 strv_pop(struct strv *);
void	 strv_clear(struct strv *);
void	 strv_free(struct strv *);
/* Join with sep; the caller frees the result. */
char	*strv_join(const struct strv *, const char *);
/* Join an argv for display, single-quoting words a shell would split
 * or expand; the caller frees the result. */
char	*strv_join_shell(char *const *);
/* Split a NUL-separated buffer (git -z output) into v, dropping empties. */
void	 strv_split_z(struct strv *, const char *, size_t);
/* Sorted as strcmp() sorts; and without the same string twice. */
void	 strv_sort(struct strv *);
void	 strv_sort_uniq(struct strv *);
/* Is s in v, sorted as strcmp() sorts?  Where would it be: the first
 * string of v not before it (v->n if none). */
int	 strv_sorted_has(const struct strv *, const char *);
size_t	 strv_sorted_pos(const struct strv *, const char *);
/* Each directory above a path ("dir/sub/name": "", "dir", "dir/sub")
 * onto v; with last (a buffer kept from the call before, or NULL),
 * nothing where the path before was in the same directory: paths in
 * an index's order push each directory of theirs about once. */
struct buf;
void	 strv_push_dirs(struct strv *, struct buf *, const char *);
/* Add to a checksum (sum.h) a tag, then each string of v (NULL: none). */
struct sum;
void	 strv_sum(const struct strv *, struct sum *, const char *);

#endif /* STRV_H */
