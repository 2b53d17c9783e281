#ifndef REVLINE_REMOTE_URL_H
#define REVLINE_REMOTE_URL_H

#include "buf.h"

/*
 * A repository's identity in a team's store: its remote URL in one form,
 * whichever way each clone reached it. Credentials, the user name, the
 * scheme, default ports, a query or fragment, a trailing '/' and ".git"
 * go; the host is lower-cased. So ssh://git@github.com:22/org/repo.git,
 * git@github.com:org/repo and https://user:token@github.com/org/repo/ are
 * all "github.com/org/repo". A local path or file:// URL is "file:" and the
 * path. The URL comes from the user's git config; what it holds never
 * reaches a message (it may hold a token).
 */

/* Longer than this is not a remote URL revline keeps. */
#define REMOTE_URL_MAX 2048

/* The identity of url in out; RL_EPARSE for an empty, overlong or control-character URL. */
int remote_url_normalize(struct buf *out, const char *url);

#endif
