/*
 * netprobe listen FILE: listen on 127.0.0.1, an ephemeral port, and write
 * the port to FILE (atomically) once connections can come; accept them
 * until killed.
 * netprobe connect PORT: connect to 127.0.0.1:PORT; exit 0 if it
 * connected, 1 if not (saying why).
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	char			tmp[4096];
	FILE			*f;
	int			fd, c;

	if (argc != 3) {
		fprintf(stderr, "usage: netprobe listen file | connect port\n");
		return 2;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		perror("socket");
		return 1;
	}
	if (strcmp(argv[1], "connect") == 0) {
		sin.sin_port = htons((unsigned short)atoi(argv[2]));
		if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
			perror("connect");
			return 1;
		}
		return 0;
	}
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 64) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		perror("listen");
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
	if ((f = fopen(tmp, "w")) == NULL || fprintf(f, "%d\n",
	    ntohs(sin.sin_port)) < 0 || fclose(f) == EOF ||
	    rename(tmp, argv[2]) == -1) {
		perror(argv[2]);
		return 1;
	}
	for (;;)
		if ((c = accept(fd, NULL, NULL)) != -1)
			close(c);
}
