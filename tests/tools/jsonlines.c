/* jsonlines.c - checks that every line of standard input is one JSON object
 * (RFC 8259 grammar, strictly: no trailing commas, no bare words, escapes and
 * numbers as the standard spells them), for the tests of --json outputs.
 *   jsonlines < FILE     exit 0 when all lines are objects, else 1 naming the line */
#include <stdio.h>
#include <sys/types.h>
#include <stdlib.h>
#include <string.h>

typedef struct cursor {
    const char *p;
    int depth;
} cursor;

static int value(cursor *c);

static void ws(cursor *c)
{
    while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r' || *c->p == '\n')
        c->p++;
}

static int hex(char ch) { return (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f') || (ch >= 'A' && ch <= 'F'); }

static int string(cursor *c)
{
    if (*c->p != '"')
        return 0;
    c->p++;
    for (;;) {
        unsigned char ch = (unsigned char)*c->p;
        if (ch == '"') {
            c->p++;
            return 1;
        }
        if (ch < 0x20)
            return 0; /* the end of the text or a raw control character */
        if (ch == '\\') {
            c->p++;
            if (*c->p == 'u') {
                for (int i = 1; i <= 4; i++)
                    if (!hex(c->p[i]))
                        return 0;
                c->p += 5;
                continue;
            }
            if (!*c->p || !strchr("\"\\/bfnrt", *c->p))
                return 0;
        }
        c->p++;
    }
}

static int digits(cursor *c)
{
    if (*c->p < '0' || *c->p > '9')
        return 0;
    while (*c->p >= '0' && *c->p <= '9')
        c->p++;
    return 1;
}

static int number(cursor *c)
{
    if (*c->p == '-')
        c->p++;
    if (*c->p == '0')
        c->p++;
    else if (!digits(c))
        return 0;
    if (*c->p == '.') {
        c->p++;
        if (!digits(c))
            return 0;
    }
    if (*c->p == 'e' || *c->p == 'E') {
        c->p++;
        if (*c->p == '+' || *c->p == '-')
            c->p++;
        if (!digits(c))
            return 0;
    }
    return 1;
}

/* A comma-separated list between open and close; members are "key": value when obj. */
static int list(cursor *c, char close, int obj)
{
    if (++c->depth > 64)
        return 0;
    c->p++;
    ws(c);
    if (*c->p == close) {
        c->p++;
        c->depth--;
        return 1;
    }
    for (;;) {
        ws(c);
        if (obj) {
            if (!string(c))
                return 0;
            ws(c);
            if (*c->p++ != ':')
                return 0;
        }
        if (!value(c))
            return 0;
        ws(c);
        if (*c->p == ',') {
            c->p++;
            continue;
        }
        if (*c->p != close)
            return 0;
        c->p++;
        c->depth--;
        return 1;
    }
}

static int word(cursor *c, const char *w)
{
    size_t n = strlen(w);
    if (strncmp(c->p, w, n) != 0)
        return 0;
    c->p += n;
    return 1;
}

static int value(cursor *c)
{
    ws(c);
    switch (*c->p) {
    case '{': return list(c, '}', 1);
    case '[': return list(c, ']', 0);
    case '"': return string(c);
    case 't': return word(c, "true");
    case 'f': return word(c, "false");
    case 'n': return word(c, "null");
    default: return number(c);
    }
}

int main(void)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    long no = 0;
    int bad = 0;
    while ((n = getline(&line, &cap, stdin)) != -1) {
        no++;
        cursor c = { line, 0 };
        ws(&c);
        int ok = *c.p == '{' && value(&c);
        ws(&c);
        if (!ok || *c.p) {
            fprintf(stderr, "jsonlines: line %ld is not one JSON object (at byte %ld)\n", no, (long)(c.p - line));
            bad = 1;
        }
    }
    free(line);
    if (no == 0) {
        fprintf(stderr, "jsonlines: no lines\n");
        bad = 1;
    }
    return bad;
}
