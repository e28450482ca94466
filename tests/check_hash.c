/*
 * hash.c: SHA-1 and SHA-256 against the test vectors of FIPS 180, against
 * sha1sum and sha256sum for every length around the padding's edges, and
 * fed in pieces of every size.
 */
#include "config.h"

#include "unit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hash.h"

/* The hex digest of len bytes of data. */
static void
digest(size_t rawsz, const void *data, size_t len, char *hex)
{
	struct hash	h;
	unsigned char	raw[HASH_MAX];

	ck_assert_int_eq(hash_init(&h, rawsz), 0);
	hash_update(&h, data, len);
	hash_final(&h, raw);
	hash_hex(raw, rawsz, hex);
}

START_TEST(t_vectors)
{
	static const char	 two[] = "abcdbcdecdefdefgefghfghighijhijkijk"
	    "ljklmklmnlmnomnopnopq";
	char			 hex[2 * HASH_MAX + 1], *million;
	struct hash		 h;

	digest(20, "", 0, hex);
	ck_assert_str_eq(hex, "da39a3ee5e6b4b0d3255bfef95601890afd80709");
	digest(20, "abc", 3, hex);
	ck_assert_str_eq(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
	digest(20, two, strlen(two), hex);
	ck_assert_str_eq(hex, "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
	digest(32, "", 0, hex);
	ck_assert_str_eq(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b"
	    "934ca495991b7852b855");
	digest(32, "abc", 3, hex);
	ck_assert_str_eq(hex, "ba7816bf8f01cfea414140de5dae2223b00361a39617"
	    "7a9cb410ff61f20015ad");
	digest(32, two, strlen(two), hex);
	ck_assert_str_eq(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff"
	    "2167f6ecedd419db06c1");
	million = malloc(1000000);
	ck_assert_ptr_nonnull(million);
	memset(million, 'a', 1000000);
	digest(20, million, 1000000, hex);
	ck_assert_str_eq(hex, "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
	digest(32, million, 1000000, hex);
	ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497"
	    "200e046d39ccc7112cd0");
	free(million);
	/* Neither hash: refused. */
	ck_assert_int_eq(hash_init(&h, 16), -1);
}
END_TEST

/* Every length from 0 to 200 bytes (each side of 55, 56 and 64, where
 * the padding takes another block), against coreutils. */
START_TEST(t_lengths)
{
	static const char *const	 tools[] = { "sha1sum", "sha256sum" };
	unsigned char			 data[200];
	char				 hex[2 * HASH_MAX + 1], want[80];
	char				 cmd[4200], file[4096];
	const char			*tmp = getenv("TMPDIR");
	FILE				*fp;
	size_t				 len, i, t;
	int				 fd;

	for (i = 0; i < sizeof(data); i++)
		data[i] = (unsigned char)(i * 7 + 3);
	snprintf(file, sizeof(file), "%s/check_hash.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	fd = mkstemp(file);
	ck_assert_int_ne(fd, -1);
	for (len = 0; len <= sizeof(data); len++) {
		ck_assert_int_eq(ftruncate(fd, 0), 0);
		ck_assert_int_eq(pwrite(fd, data, len, 0), (ssize_t)len);
		for (t = 0; t < 2; t++) {
			snprintf(cmd, sizeof(cmd), "%s <'%s'", tools[t],
			    file);
			fp = popen(cmd, "r");
			ck_assert_ptr_nonnull(fp);
			ck_assert_ptr_nonnull(fgets(want, sizeof(want), fp));
			ck_assert_int_eq(pclose(fp), 0);
			want[t == 0 ? 40 : 64] = '\0';
			digest(t == 0 ? 20 : 32, data, len, hex);
			ck_assert_msg(strcmp(hex, want) == 0, "%s of %zu bytes",
			    tools[t], len);
		}
	}
	close(fd);
	unlink(file);
}
END_TEST

/* In pieces of every size from 1 to 130 bytes: as whole. */
START_TEST(t_pieces)
{
	unsigned char	 data[1000], raw[HASH_MAX];
	char		 whole[2 * HASH_MAX + 1], hex[2 * HASH_MAX + 1];
	struct hash	 h;
	size_t		 piece, off, n, rawsz;

	for (off = 0; off < sizeof(data); off++)
		data[off] = (unsigned char)(off * 131 + 17);
	for (rawsz = 20; rawsz <= 32; rawsz += 12) {
		digest(rawsz, data, sizeof(data), whole);
		for (piece = 1; piece <= 130; piece++) {
			ck_assert_int_eq(hash_init(&h, rawsz), 0);
			for (off = 0; off < sizeof(data); off += n) {
				n = sizeof(data) - off < piece ?
				    sizeof(data) - off : piece;
				hash_update(&h, data + off, n);
				hash_update(&h, data, 0);
			}
			hash_final(&h, raw);
			hash_hex(raw, rawsz, hex);
			ck_assert_str_eq(hex, whole);
		}
	}
}
END_TEST

static Suite *
hash_suite(void)
{
	Suite	*s;
	TCase	*tc;

	s = suite_create("hash");
	tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_vectors);
	tcase_add_test(tc, t_lengths);
	tcase_add_test(tc, t_pieces);
	suite_add_tcase(s, tc);
	return s;
}

UNIT_MAIN(hash_suite)
