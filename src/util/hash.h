/*
 * SHA-1 and SHA-256 (FIPS 180-4), the two hashes git names its objects
 * by: what forge needs to compute a tree's id from an index's entries
 * without a git writing the tree.
 *
 *	struct hash h;
 *	hash_init(&h, 20);		20: SHA-1, 32: SHA-256
 *	hash_update(&h, data, len);	as often as wanted
 *	hash_final(&h, out);		out: 20 or 32 bytes
 *
 * Each call takes a length: nothing is assumed of the data.
 */
#ifndef HASH_H
#define HASH_H

#include <stddef.h>
#include <stdint.h>

#define HASH_MAX	32

struct hash {
	uint32_t	 s[8];
	uint64_t	 len;		/* bytes so far */
	unsigned char	 block[64];
	size_t		 have;		/* bytes of block in use */
	size_t		 rawsz;		/* 20 or 32 */
};

int	 hash_init(struct hash *, size_t);
void	 hash_update(struct hash *, const void *, size_t);
void	 hash_final(struct hash *, unsigned char *);
void	 hash_hex(const unsigned char *, size_t, char *);

#endif /* HASH_H */
