/* A repository's remote URL in one form, for telling a repository apart from its clones. */
#include "remote_url.h"
#include "status.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>
#include <strings.h>

/* The scheme's length when url starts with one and "://" ([A-Za-z][A-Za-z0-9+.-]*), else 0. */
static size_t scheme_len(const char *url)
{
	size_t i = 0;

	if (!isalpha((unsigned char)url[0]))
		return 0;
	while (isalnum((unsigned char)url[i]) || url[i] == '+' || url[i] == '.' || url[i] == '-')
		i++;
	return strncmp(url + i, "://", 3) ? 0 : i;
}

/* The port each scheme has when none is given, which says nothing. */
static bool port_default(const char *scheme, size_t len, const char *port, size_t plen)
{
	static const struct { const char *scheme, *port; } ports[] = {
		{ "ssh", "22" }, { "git+ssh", "22" }, { "ssh+git", "22" }, { "git", "9418" },
		{ "http", "80" }, { "https", "443" }, { "ftp", "21" }, { "ftps", "990" },
	};
	size_t i;

	if (!plen)
		return true;
	for (i = 0; i < sizeof(ports) / sizeof(ports[0]); i++)
		if (strlen(ports[i].scheme) == len && !strncasecmp(ports[i].scheme, scheme, len) &&
		    strlen(ports[i].port) == plen && !strncmp(ports[i].port, port, plen))
			return true;
	return false;
}

/* A path, '/'-runs made one, without a query or fragment (URLs only), trailing '/' and ".git". */
static int path_put(struct buf *out, const char *path, size_t len)
{
	size_t i, start = out->len;
	int error = 0;

	for (i = 0; i < len && !error; i++)
		if (path[i] != '/' || !out->len || out->ptr[out->len - 1] != '/')
			error = buf_putc(out, path[i]);
	if (error)
		return error;
	while (out->len > start && out->ptr[out->len - 1] == '/')
		out->ptr[--out->len] = '\0';
	if (out->len - start > 4 && !strcmp(out->ptr + out->len - 4, ".git"))
		out->len -= 4, out->ptr[out->len] = '\0';
	while (out->len > start && out->ptr[out->len - 1] == '/')
		out->ptr[--out->len] = '\0';
	return 0;
}

/* host[:port] lower-cased, without user and password; brackets of an IPv6 address kept. */
static int host_put(struct buf *out, const char *host, size_t len, const char *scheme, size_t slen)
{
	const char *at = memrchr(host, '@', len), *colon, *close;
	size_t i, hlen;
	int error = 0;

	if (at)
		len -= (size_t)(at + 1 - host), host = at + 1;
	close = host[0] == '[' ? memchr(host, ']', len) : NULL;
	colon = memchr(close ? close : host, ':', len - (size_t)((close ? close : host) - host));
	hlen = colon ? (size_t)(colon - host) : len;
	if (!hlen)
		return error_set(RL_EPARSE, "the remote URL has no host");
	for (i = 0; i < hlen && !error; i++)
		error = buf_putc(out, (char)tolower((unsigned char)host[i]));
	if (!error && colon && !port_default(scheme, slen, colon + 1, len - hlen - 1))
		error = buf_put(out, colon, len - hlen);
	return error;
}

/* scheme://[user[:password]@]host[:port]/path[?query][#fragment] */
static int url_put(struct buf *out, const char *url, size_t slen)
{
	const char *rest = url + slen + 3, *slash, *end;
	int error;

	if (slen == 4 && !strncasecmp(url, "file", 4)) {
		if (!strncasecmp(rest, "localhost/", 10))
			rest += 9;
		return buf_puts(out, "file:") < 0 ? error_nomem() : path_put(out, rest, strlen(rest));
	}
	end = rest + strcspn(rest, "?#");
	slash = memchr(rest, '/', (size_t)(end - rest));
	if (!slash)
		slash = end;
	if ((error = host_put(out, rest, (size_t)(slash - rest), url, slen)) < 0)
		return error;
	if (slash == end)
		return 0;
	if (buf_putc(out, '/') < 0)
		return error_nomem();
	return path_put(out, slash, (size_t)(end - slash));
}

/* [user@]host:path, git's scp-like form, when a ':' comes before any '/'. */
static bool scp_like(const char *url, const char **colon)
{
	const char *start = url[0] == '[' ? strchr(url, ']') : url;

	*colon = start ? strchr(start, ':') : NULL;
	return *colon && *colon != url && !memchr(url, '/', (size_t)(*colon - url));
}

int remote_url_normalize(struct buf *out, const char *url)
{
	const char *colon, *host;
	size_t i, len = url ? strlen(url) : 0, slen;
	int error;

	buf_clear(out);
	if (!len)
		return error_set(RL_EPARSE, "the remote URL is empty");
	if (len > REMOTE_URL_MAX)
		return error_set(RL_EPARSE, "the remote URL is longer than %d bytes", REMOTE_URL_MAX);
	for (i = 0; i < len; i++)
		if ((unsigned char)url[i] < 0x20 || url[i] == 0x7f)
			return error_set(RL_EPARSE, "the remote URL has a control character");
	if ((slen = scheme_len(url)))
		return url_put(out, url, slen);
	if (scp_like(url, &colon)) {
		host = url[0] == '[' ? url + 1 : url;
		if ((error = host_put(out, host, (size_t)(colon - host) - (url[0] == '['), "ssh", 3)) < 0)
			return error;
		if (buf_putc(out, '/') < 0)
			return error_nomem();
		return path_put(out, colon + 1, strlen(colon + 1));
	}
	if (buf_puts(out, "file:") < 0)
		return error_nomem();
	return path_put(out, url, len);
}
