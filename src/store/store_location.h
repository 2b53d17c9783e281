#ifndef REVLINE_STORE_LOCATION_H
#define REVLINE_STORE_LOCATION_H

#include "buf.h"

/*
 * Where the store is, as revline.db (or REVLINE_DB) says it, told the way
 * libpq tells a connection string from a database name: a PostgreSQL
 * connection URI (postgresql:// or postgres://) or a key/value string
 * (anything with an '=', "host=db dbname=revline"), else a file path.
 *
 * A connection string can hold a password (the URI's user:password@, a
 * password= or sslpassword= parameter or keyword, percent-encoded or
 * quoted). Only the display form may appear in a message or a log: the
 * text with every such value replaced by STORE_LOCATION_HIDDEN. When a
 * key/value string does not parse as libpq parses it, everything from where
 * it stops parsing is hidden; a dbname that is itself a connection string
 * is hidden whole.
 */
#define STORE_LOCATION_HIDDEN "***"

enum store_location_kind {
	STORE_LOCATION_FILE,
	STORE_LOCATION_POSTGRES,
};

struct store_location {
	enum store_location_kind kind;
	char *conninfo;   /* what to hand libpq (PQconnectdb), or the file path */
	char *display;    /* for messages and logs: no password */
};

enum store_location_kind store_location_kind(const char *text);

/* The kind and both forms of text (which must not be NULL); release with store_location_release. */
int store_location_parse(struct store_location *out, const char *text);
void store_location_release(struct store_location *location);

/* text's display form, appended to out (a file path as it is). */
int store_location_display(struct buf *out, const char *text);

/*
 * The setting that named text, for a message: the option that named it
 * (store_location_named), else "REVLINE_DB" when that environment
 * variable holds it (the environment wins over git config), else
 * "revline.db".
 */
const char *store_location_setting(const char *text);

/*
 * Say that an option of the command line named text (`revline db migrate
 * --to`): the setting messages name for it from then on. Both strings
 * must live as long as the process uses them (argv, literals); a few
 * locations at most, the first named kept when there are more.
 */
void store_location_named(const char *text, const char *setting);

#endif
