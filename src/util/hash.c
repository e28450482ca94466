/* SHA-1 and SHA-256, as FIPS 180-4 gives them. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "hash.h"

#define ROL(x, n)	((uint32_t)((x) << (n)) | ((x) >> (32 - (n))))
#define ROR(x, n)	((uint32_t)((x) >> (n)) | ((x) << (32 - (n))))

static const uint32_t k256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b,
	0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
	0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7,
	0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
	0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152,
	0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
	0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
	0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
	0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
	0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f,
	0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
	0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2
};

static uint32_t
be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/* SHA-1's rounds, unrolled: the message schedule kept as 16 words. */
#define W(i)	(w[(i) & 15] = ROL(w[((i) + 13) & 15] ^ w[((i) + 8) & 15] ^ \
		    w[((i) + 2) & 15] ^ w[(i) & 15], 1))
#define R0(v, x, y, z, u, i)	do {					\
	u += ((x & (y ^ z)) ^ z) + w[i] + 0x5a827999 + ROL(v, 5);	\
	x = ROL(x, 30);							\
} while (0)
#define R1(v, x, y, z, u, i)	do {					\
	u += ((x & (y ^ z)) ^ z) + W(i) + 0x5a827999 + ROL(v, 5);	\
	x = ROL(x, 30);							\
} while (0)
#define R2(v, x, y, z, u, i)	do {					\
	u += (x ^ y ^ z) + W(i) + 0x6ed9eba1 + ROL(v, 5);		\
	x = ROL(x, 30);							\
} while (0)
#define R3(v, x, y, z, u, i)	do {					\
	u += (((x | y) & z) | (x & y)) + W(i) + 0x8f1bbcdc + ROL(v, 5);	\
	x = ROL(x, 30);							\
} while (0)
#define R4(v, x, y, z, u, i)	do {					\
	u += (x ^ y ^ z) + W(i) + 0xca62c1d6 + ROL(v, 5);		\
	x = ROL(x, 30);							\
} while (0)
/* Five rounds, the variables turning one place each. */
#define FIVE(R, i)	do {						\
	R(a, b, c, d, e, (i));						\
	R(e, a, b, c, d, (i) + 1);					\
	R(d, e, a, b, c, (i) + 2);					\
	R(c, d, e, a, b, (i) + 3);					\
	R(b, c, d, e, a, (i) + 4);					\
} while (0)

static void
sha1_block(uint32_t *s, const unsigned char *p)
{
	uint32_t	w[16], a, b, c, d, e;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = be32(p + 4 * i);
	a = s[0];
	b = s[1];
	c = s[2];
	d = s[3];
	e = s[4];
	FIVE(R0, 0);
	FIVE(R0, 5);
	FIVE(R0, 10);
	R0(a, b, c, d, e, 15);
	R1(e, a, b, c, d, 16);
	R1(d, e, a, b, c, 17);
	R1(c, d, e, a, b, 18);
	R1(b, c, d, e, a, 19);
	FIVE(R2, 20);
	FIVE(R2, 25);
	FIVE(R2, 30);
	FIVE(R2, 35);
	FIVE(R3, 40);
	FIVE(R3, 45);
	FIVE(R3, 50);
	FIVE(R3, 55);
	FIVE(R4, 60);
	FIVE(R4, 65);
	FIVE(R4, 70);
	FIVE(R4, 75);
	s[0] += a;
	s[1] += b;
	s[2] += c;
	s[3] += d;
	s[4] += e;
}

static void
sha256_block(uint32_t *s, const unsigned char *p)
{
	uint32_t	w[64], a, b, c, d, e, f, g, h, t1, t2;
	int		i;

	for (i = 0; i < 16; i++)
		w[i] = be32(p + 4 * i);
	for (; i < 64; i++)
		w[i] = w[i - 16] + (ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^
		    (w[i - 15] >> 3)) + w[i - 7] + (ROR(w[i - 2], 17) ^
		    ROR(w[i - 2], 19) ^ (w[i - 2] >> 10));
	a = s[0];
	b = s[1];
	c = s[2];
	d = s[3];
	e = s[4];
	f = s[5];
	g = s[6];
	h = s[7];
	for (i = 0; i < 64; i++) {
		t1 = h + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) +
		    ((e & f) ^ (~e & g)) + k256[i] + w[i];
		t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) +
		    ((a & b) ^ (a & c) ^ (b & c));
		h = g;
		g = f;
		f = e;
		e = d + t1;
		d = c;
		c = b;
		b = a;
		a = t1 + t2;
	}
	s[0] += a;
	s[1] += b;
	s[2] += c;
	s[3] += d;
	s[4] += e;
	s[5] += f;
	s[6] += g;
	s[7] += h;
}

static void
block(struct hash *h, const unsigned char *p)
{
	if (h->rawsz == 20)
		sha1_block(h->s, p);
	else
		sha256_block(h->s, p);
}

int
hash_init(struct hash *h, size_t rawsz)
{
	static const uint32_t	iv1[5] = { 0x67452301, 0xefcdab89,
	    0x98badcfe, 0x10325476, 0xc3d2e1f0 };
	static const uint32_t	iv256[8] = { 0x6a09e667, 0xbb67ae85,
	    0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
	    0x5be0cd19 };

	memset(h, 0, sizeof(*h));
	if (rawsz == 20)
		memcpy(h->s, iv1, sizeof(iv1));
	else if (rawsz == 32)
		memcpy(h->s, iv256, sizeof(iv256));
	else {
		errno = EINVAL;
		return -1;
	}
	h->rawsz = rawsz;
	return 0;
}

void
hash_update(struct hash *h, const void *data, size_t len)
{
	const unsigned char	*p = data;
	size_t			 n;

	h->len += len;
	if (h->have > 0) {
		n = 64 - h->have < len ? 64 - h->have : len;
		memcpy(h->block + h->have, p, n);
		h->have += n;
		p += n;
		len -= n;
		if (h->have < 64)
			return;
		block(h, h->block);
		h->have = 0;
	}
	for (; len >= 64; p += 64, len -= 64)
		block(h, p);
	memcpy(h->block, p, len);
	h->have = len;
}

void
hash_final(struct hash *h, unsigned char *out)
{
	uint64_t	bits = h->len * 8;
	size_t		i;

	/* A 1 bit, 0 bits to 56 bytes of a block, the length in bits. */
	h->block[h->have++] = 0x80;
	if (h->have > 56) {
		memset(h->block + h->have, 0, 64 - h->have);
		block(h, h->block);
		h->have = 0;
	}
	memset(h->block + h->have, 0, 56 - h->have);
	for (i = 0; i < 8; i++)
		h->block[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
	block(h, h->block);
	for (i = 0; i < h->rawsz / 4; i++) {
		out[4 * i] = (unsigned char)(h->s[i] >> 24);
		out[4 * i + 1] = (unsigned char)(h->s[i] >> 16);
		out[4 * i + 2] = (unsigned char)(h->s[i] >> 8);
		out[4 * i + 3] = (unsigned char)h->s[i];
	}
	memset(h, 0, sizeof(*h));
}

void
hash_hex(const unsigned char *raw, size_t rawsz, char *hex)
{
	static const char	digits[] = "0123456789abcdef";
	size_t			i;

	for (i = 0; i < rawsz; i++) {
		hex[2 * i] = digits[raw[i] >> 4];
		hex[2 * i + 1] = digits[raw[i] & 15];
	}
	hex[2 * rawsz] = '\0';
}
