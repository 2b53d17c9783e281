#ifndef REVLINE_RULES_INTERNAL_H
#define REVLINE_RULES_INTERNAL_H

/* Inside the rules: what rules.c, rules_frontmatter.c and rules_pattern.c share. */

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>

#include "rules.h"

/* Record a problem of a rule file ("path:line: message"); 0 or RL_ENOMEM. */
int problem_vadd(struct rule_set *set, const char *path, int line, bool fatal,
		 const char *fmt, va_list ap);
int problem_add(struct rule_set *set, const char *path, int line, bool fatal, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* rule_parse, also telling the line of the id (1 when there is none), for the loader's messages. */
int rule_parse_at(struct rule *out, const char *path, const char *text, size_t len,
		  struct rule_set *problems, int *id_line);

/*
 * Compile rule->pattern into rule->regex: 0; RL_ENOMEM; RL_EPARSE with
 * PCRE2's reason and where ("... at offset N") as the message.
 */
int rule_pattern_compile(struct rule *rule);
void rule_pattern_free(struct rule *rule);

#endif
