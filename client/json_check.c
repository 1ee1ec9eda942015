/* A recursive-descent JSON syntax check, bounded in depth, that allocates
 * nothing (json_check.h). */
#include "json_check.h"

#include <stdio.h>
#include <string.h>

#define MAX_DEPTH 512

typedef struct {
    const char *s;
    size_t len, pos;
    mwc_json_check *r;
} parser;

static int failed(parser *p, const char *what)
{
    if (p->r->error[0] == '\0') {
        size_t line = 1, col = 1;
        for (size_t i = 0; i < p->pos && i < p->len; i++) {
            if (p->s[i] == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        p->r->line = line;
        p->r->column = col;
        snprintf(p->r->error, sizeof p->r->error, "%s", what);
    }
    return -1;
}

static int peek(const parser *p)
{
    return p->pos < p->len ? (unsigned char)p->s[p->pos] : -1;
}

static void space(parser *p)
{
    while (p->pos < p->len && strchr(" \t\r\n", p->s[p->pos]) && p->s[p->pos] != '\0')
        p->pos++;
}

static int literal(parser *p, const char *word)
{
    size_t n = strlen(word);
    if (p->len - p->pos < n || memcmp(p->s + p->pos, word, n) != 0)
        return failed(p, "expected a value");
    p->pos += n;
    return 0;
}

static int hex4(parser *p)
{
    for (int i = 0; i < 4; i++, p->pos++) {
        int c = peek(p);
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
            return failed(p, "expected four hex digits after \\u");
    }
    return 0;
}

/* A string; its raw text (between the quotes) into out when it fits. */
static int string(parser *p, char *out, size_t size)
{
    size_t start = ++p->pos;   /* after the opening quote */
    for (;;) {
        int c = peek(p);
        if (c < 0)
            return failed(p, "a string is not closed");
        if (c < 0x20)
            return failed(p, "a control character inside a string");
        if (c == '"')
            break;
        if (c == '\\') {
            p->pos++;
            c = peek(p);
            if (c == 'u') {
                p->pos++;
                if (hex4(p) != 0)
                    return -1;
                continue;
            }
            if (c < 0 || !strchr("\"\\/bfnrt", c) || c == '\0')
                return failed(p, "an invalid escape in a string");
        }
        p->pos++;
    }
    if (out != NULL) {
        size_t n = p->pos - start;
        if (n < size) {
            memcpy(out, p->s + start, n);
            out[n] = '\0';
        }
    }
    p->pos++;
    return 0;
}

static int digits(parser *p)
{
    size_t start = p->pos;
    while (peek(p) >= '0' && peek(p) <= '9')
        p->pos++;
    return p->pos > start ? 0 : failed(p, "expected a digit");
}

static int number(parser *p)
{
    if (peek(p) == '-')
        p->pos++;
    if (peek(p) == '0')
        p->pos++;
    else if (digits(p) != 0)
        return -1;
    if (peek(p) == '.') {
        p->pos++;
        if (digits(p) != 0)
            return -1;
    }
    if (peek(p) == 'e' || peek(p) == 'E') {
        p->pos++;
        if (peek(p) == '+' || peek(p) == '-')
            p->pos++;
        if (digits(p) != 0)
            return -1;
    }
    return 0;
}

static int value(parser *p, int depth);

static int object(parser *p, int depth)
{
    p->pos++;
    space(p);
    if (peek(p) == '}') {
        p->pos++;
        return 0;
    }
    for (;;) {
        char key[16] = "";
        if (peek(p) != '"')
            return failed(p, "expected a key (a string)");
        if (string(p, key, sizeof key) != 0)
            return -1;
        space(p);
        if (peek(p) != ':')
            return failed(p, "expected ':' after a key");
        p->pos++;
        space(p);
        if (depth == 1 && strcmp(key, "schema") == 0 && peek(p) == '"') {
            if (string(p, p->r->schema, sizeof p->r->schema) != 0)
                return -1;
        } else if (value(p, depth) != 0) {
            return -1;
        }
        space(p);
        if (peek(p) == ',') {
            p->pos++;
            space(p);
            continue;
        }
        if (peek(p) == '}') {
            p->pos++;
            return 0;
        }
        return failed(p, "expected ',' or '}' in an object");
    }
}

static int array(parser *p, int depth)
{
    p->pos++;
    space(p);
    if (peek(p) == ']') {
        p->pos++;
        return 0;
    }
    for (;;) {
        if (value(p, depth) != 0)
            return -1;
        space(p);
        if (peek(p) == ',') {
            p->pos++;
            space(p);
            continue;
        }
        if (peek(p) == ']') {
            p->pos++;
            return 0;
        }
        return failed(p, "expected ',' or ']' in an array");
    }
}

static int value(parser *p, int depth)
{
    if (depth >= MAX_DEPTH)
        return failed(p, "nested more than 512 levels deep");
    switch (peek(p)) {
    case '{': return object(p, depth + 1);
    case '[': return array(p, depth + 1);
    case '"': return string(p, NULL, 0);
    case 't': return literal(p, "true");
    case 'f': return literal(p, "false");
    case 'n': return literal(p, "null");
    case -1: return failed(p, "the document ends where a value was expected");
    default:
        if (peek(p) == '-' || (peek(p) >= '0' && peek(p) <= '9'))
            return number(p);
        return failed(p, "expected a value");
    }
}

int mwc_json_check_text(const char *text, size_t len, mwc_json_check *r)
{
    memset(r, 0, sizeof *r);
    parser p = {text, len, 0, r};
    space(&p);
    r->is_object = peek(&p) == '{';
    if (value(&p, 0) != 0)
        return -1;
    space(&p);
    if (p.pos != len)
        return failed(&p, "more text after the JSON value");
    return 0;
}
