/* A fast 128-bit checksum, a word at a time (sum.h). */
#include "config.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "sum.h"
#include "xmalloc.h"

#define K0	0x9e3779b97f4a7c15ULL
#define K1	0xc2b2ae3d27d4eb4fULL

static uint64_t
rotl(uint64_t x, int r)
{
	return (x << r) | (x >> (64 - r));
}

/*
 * Each lane's step is a bijection of its state for a given word and of
 * the word for a given state, so two inputs that differ in one word
 * differ in both lanes from there on.  The lanes do not wait on each
 * other: a word costs about one multiplication's latency.
 */
static void
word(uint64_t h[2], uint64_t w)
{
	h[0] = (h[0] ^ w) * K0;
	h[0] ^= h[0] >> 29;
	h[1] = rotl(h[1] + w, 31) * K1;
}

static uint64_t
load(const unsigned char *p)
{
	return (uint64_t)p[0] | (uint64_t)p[1] << 8 |
	    (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
	    (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 |
	    (uint64_t)p[6] << 48 | (uint64_t)p[7] << 56;
}

void
sum_init(struct sum *s)
{
	memset(s, 0, sizeof(*s));
	s->h[0] = 0x6a09e667f3bcc908ULL;
	s->h[1] = 0xbb67ae8584caa73bULL;
}

void
sum_add(struct sum *s, const void *data, size_t n)
{
	const unsigned char	*p = data;
	size_t			 have = s->len % 8, take;

	s->len += n;
	if (have != 0) {
		take = 8 - have < n ? 8 - have : n;
		memcpy(s->tail + have, p, take);
		p += take;
		n -= take;
		if (have + take < 8)
			return;
		word(s->h, load(s->tail));
	}
	for (; n >= 8; p += 8, n -= 8)
		word(s->h, load(p));
	memcpy(s->tail, p, n);
}

void
sum_str(struct sum *s, const char *str)
{
	sum_add(s, str, strlen(str) + 1);
}

/* A finalizer that spreads every bit of its input over the output. */
static uint64_t
mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

void
sum_final(const struct sum *s, uint64_t d[2])
{
	unsigned char	last[8] = { 0 };
	uint64_t	h[2] = { s->h[0], s->h[1] };

	/* The length too: a tail of NULs must not look like none. */
	memcpy(last, s->tail, s->len % 8);
	word(h, load(last));
	word(h, s->len);
	d[0] = mix(h[0] ^ rotl(h[1], 17));
	d[1] = mix(h[1] + d[0]);
}

int
sum_fd(struct sum *s, int fd)
{
	char	b[65536];
	ssize_t	n;

	while ((n = read(fd, b, sizeof(b))) > 0)
		sum_add(s, b, (size_t)n);
	return n == -1 ? -1 : 0;
}

int
sum_file(struct sum *s, const char *path)
{
	int	fd, r;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	r = sum_fd(s, fd);
	close(fd);
	return r;
}

char *
sum_line(const struct sum *s, const char *prefix)
{
	uint64_t	d[2];

	sum_final(s, d);
	return xasprintf("%s%016llx%016llx\n", prefix,
	    (unsigned long long)d[0], (unsigned long long)d[1]);
}
