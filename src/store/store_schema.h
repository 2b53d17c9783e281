#ifndef REVLINE_STORE_SCHEMA_H
#define REVLINE_STORE_SCHEMA_H

#include <stddef.h>

/* Inside the store: store_migrations[i] takes a database from user_version i to i + 1. */
extern const char *const store_migrations[];
extern const size_t store_nmigrations;

#endif
