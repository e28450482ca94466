/*
 * netprobe: what a command can reach of the network.
 *
 *	netprobe listen FILE [ADDR]	listen on ADDR (127.0.0.1, or ::1),
 *					an ephemeral TCP port, and write the
 *					port to FILE (atomically) once
 *					connections can come; accept them
 *					until killed
 *	netprobe connect PORT [ADDR]	connect to ADDR:PORT; exit 0 if it
 *					connected, 1 if not (saying why)
 *	netprobe listen-unix NAME FILE	the same on a unix socket: NAME
 *					is a path, or @name for an
 *					abstract one; FILE says when it
 *					listens
 *	netprobe connect-unix NAME
 *	netprobe families		each address family a socket of some
 *					type can be made in, one number a
 *					line (AF_UNIX is 1)
 *	netprobe pair FAMILY		socketpair(2) in FAMILY (a number)
 *	netprobe uring			can an io_uring be set up (it
 *					makes sockets of its own)?
 */
#define _GNU_SOURCE

#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAMILIES	64	/* past AF_MAX, whatever the headers say */
#define NR_IO_URING_SETUP 425	/* the same everywhere */

static void
ready(const char *file, const char *what)
{
	char	tmp[4096];
	FILE	*f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", file);
	if ((f = fopen(tmp, "w")) == NULL || fprintf(f, "%s\n", what) < 0 ||
	    fclose(f) == EOF || rename(tmp, file) == -1) {
		perror(file);
		exit(1);
	}
}

static void
serve(int fd)
{
	int	c;

	for (;;)
		if ((c = accept(fd, NULL, NULL)) != -1)
			close(c);
}

/* ADDR (or 127.0.0.1) and PORT, as a socket address. */
static socklen_t
inet_addr_of(const char *addr, int port, struct sockaddr_storage *ss)
{
	struct sockaddr_in	*sin = (struct sockaddr_in *)ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (addr != NULL && strchr(addr, ':') != NULL) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((unsigned short)port);
		if (inet_pton(AF_INET6, addr, &sin6->sin6_addr) != 1)
			exit(2);
		return sizeof(*sin6);
	}
	sin->sin_family = AF_INET;
	sin->sin_port = htons((unsigned short)port);
	if (inet_pton(AF_INET, addr != NULL ? addr : "127.0.0.1",
	    &sin->sin_addr) != 1)
		exit(2);
	return sizeof(*sin);
}

static int
tcp(int argc, char **argv)
{
	struct sockaddr_storage	 ss;
	socklen_t		 len;
	char			 port[16];
	int			 fd, listening;

	listening = strcmp(argv[1], "listen") == 0;
	len = inet_addr_of(argc > 3 ? argv[3] : NULL, listening ? 0 :
	    atoi(argv[2]), &ss);
	if ((fd = socket(ss.ss_family, SOCK_STREAM, 0)) == -1) {
		perror("socket");
		return 1;
	}
	if (!listening) {
		if (connect(fd, (struct sockaddr *)&ss, len) == -1) {
			perror("connect");
			return 1;
		}
		return 0;
	}
	if (bind(fd, (struct sockaddr *)&ss, len) == -1 ||
	    listen(fd, 64) == -1 ||
	    getsockname(fd, (struct sockaddr *)&ss, &len) == -1) {
		perror("listen");
		return 1;
	}
	snprintf(port, sizeof(port), "%d", ntohs(ss.ss_family == AF_INET ?
	    ((struct sockaddr_in *)&ss)->sin_port :
	    ((struct sockaddr_in6 *)&ss)->sin6_port));
	ready(argv[2], port);
	serve(fd);
	return 1;
}

static int
unix_socket(int argc, char **argv)
{
	struct sockaddr_un	sun;
	socklen_t		len;
	const char		*name = argv[2];
	int			fd;

	if (strcmp(argv[1], "listen-unix") == 0 && argc < 4)
		return 2;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(name) >= sizeof(sun.sun_path))
		return 2;
	memcpy(sun.sun_path, name, strlen(name));
	len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name));
	if (name[0] == '@')
		sun.sun_path[0] = '\0';		/* abstract */
	else
		len++;
	if ((fd = socket(AF_UNIX, SOCK_STREAM, 0)) == -1) {
		perror("socket");
		return 1;
	}
	if (strcmp(argv[1], "connect-unix") == 0) {
		if (connect(fd, (struct sockaddr *)&sun, len) == -1) {
			perror("connect");
			return 1;
		}
		return 0;
	}
	if (bind(fd, (struct sockaddr *)&sun, len) == -1 ||
	    listen(fd, 64) == -1) {
		perror("listen");
		return 1;
	}
	ready(argv[3], name);
	serve(fd);
	return 1;
}

static int
families(void)
{
	static const int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_RAW,
	    SOCK_SEQPACKET, SOCK_RDM };
	size_t	t;
	int	af, fd;

	for (af = 1; af < FAMILIES; af++)
		for (t = 0; t < sizeof(types) / sizeof(types[0]); t++)
			if ((fd = socket(af, types[t], 0)) != -1) {
				close(fd);
				printf("%d\n", af);
				break;
			}
	return 0;
}

static int
pair(const char *family)
{
	int	sv[2];

	if (socketpair(atoi(family), SOCK_STREAM, 0, sv) == -1) {
		perror("socketpair");
		return 1;
	}
	return 0;
}

static int
uring(void)
{
	unsigned char	params[120];	/* struct io_uring_params */
	long		fd;

	memset(params, 0, sizeof(params));
	if ((fd = syscall(NR_IO_URING_SETUP, 1, params)) == -1) {
		perror("io_uring_setup");
		return 1;
	}
	close((int)fd);
	return 0;
}

int
main(int argc, char **argv)
{
	if (argc >= 3 && (strcmp(argv[1], "listen") == 0 ||
	    strcmp(argv[1], "connect") == 0))
		return tcp(argc, argv);
	if (argc >= 3 && (strcmp(argv[1], "listen-unix") == 0 ||
	    strcmp(argv[1], "connect-unix") == 0))
		return unix_socket(argc, argv);
	if (argc == 2 && strcmp(argv[1], "families") == 0)
		return families();
	if (argc == 3 && strcmp(argv[1], "pair") == 0)
		return pair(argv[2]);
	if (argc == 2 && strcmp(argv[1], "uring") == 0)
		return uring();
	fprintf(stderr, "usage: netprobe listen file [addr] | "
	    "connect port [addr] |\n\tlisten-unix name file | "
	    "connect-unix name | families | pair family | uring\n");
	return 2;
}
