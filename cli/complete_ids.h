#ifndef REVLINE_COMPLETE_IDS_H
#define REVLINE_COMPLETE_IDS_H

#include <stdbool.h>
#include <stdio.h>

#include "parse_options.h"

/*
 * The ids the shell completions offer where an argument takes one (enum
 * option_ids), from the database of the repository in the current
 * directory: `revline completion --list KIND` prints them for the scripts.
 */

/* The kind's word in `--list KIND`: findings, signals, fixes, applied. */
const char *complete_ids_name(enum option_ids ids);
bool complete_ids_parse(enum option_ids *out, const char *name);

/*
 * "ID<TAB>description" lines, newest first, at most COMPLETE_IDS_MAX; the
 * description one line of visible characters. Nothing when there is no
 * repository, no database or any error: a completion is never an error.
 */
#define COMPLETE_IDS_MAX 200
void complete_ids_print(FILE *out, enum option_ids ids);

#endif
