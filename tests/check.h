/* check.h — the few assertion macros the test programs share; each program
 * ends with CHECK_DONE(), which prints "N passed, N failed" and sets the exit code. */
#ifndef NPU_TUNE_CHECK_H
#define NPU_TUNE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_pass, check_fail;

/* CHECK(cond) for a condition; for a value, the macro that says what it was and what was
 * expected: CHECK_INT (integers: counts, exit codes, enums), CHECK_DBL (doubles, exactly),
 * CHECK_STR (strings), CHECK_HAS (a string holding a part), CHECK_PREFIX (starting with one). */
#define CHECK(cond) check_at((cond), #cond, __FILE__, __LINE__)
#define CHECK_INT(a, b)                                                                            \
    _Generic((a) + (b), float: CHECK_INT_of_a_double_use_CHECK_DBL,                               \
             double: CHECK_INT_of_a_double_use_CHECK_DBL, default: check_int)(                     \
        (long long)(a), (long long)(b), #a, __FILE__, __LINE__)
#define CHECK_DBL(a, b) check_dbl((double)(a), (double)(b), #a, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)
#define CHECK_HAS(s, part) check_has((s), (part), #s, __FILE__, __LINE__)
#define CHECK_PREFIX(s, prefix) check_prefix((s), (prefix), #s, __FILE__, __LINE__)
#define CHECK_DONE() (printf("%d passed, %d failed\n", check_pass, check_fail), check_fail != 0)

/* Declared, never defined: CHECK_INT on a double fails to link rather than truncate. */
int CHECK_INT_of_a_double_use_CHECK_DBL(long long, long long, const char *, const char *, int);

static inline int check_at(int ok, const char *what, const char *file, int line)
{
    if (ok)
        check_pass++;
    else {
        check_fail++;
        fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
    }
    return ok;
}

static inline int check_int(long long a, long long b, const char *what, const char *file, int line)
{
    if (a != b)
        fprintf(stderr, "%s:%d: %s is %lld, expected %lld\n", file, line, what, a, b);
    return check_at(a == b, what, file, line);
}

static inline int check_dbl(double a, double b, const char *what, const char *file, int line)
{
    if (a != b)
        fprintf(stderr, "%s:%d: %s is %.17g, expected %.17g\n", file, line, what, a, b);
    return check_at(a == b, what, file, line);
}

static inline int check_str(const char *a, const char *b, const char *what, const char *file, int line)
{
    int ok = a && b && strcmp(a, b) == 0;
    if (!ok)
        fprintf(stderr, "%s:%d: %s is\n  \"%s\"\nexpected\n  \"%s\"\n", file, line, what,
                a ? a : "(null)", b ? b : "(null)");
    return check_at(ok, what, file, line);
}

static inline int check_has(const char *s, const char *part, const char *what, const char *file,
                            int line)
{
    int ok = s && part && strstr(s, part) != NULL;
    if (!ok)
        fprintf(stderr, "%s:%d: %s is\n  \"%s\"\nwhich does not hold\n  \"%s\"\n", file, line,
                what, s ? s : "(null)", part ? part : "(null)");
    return check_at(ok, what, file, line);
}

static inline int check_prefix(const char *s, const char *prefix, const char *what,
                               const char *file, int line)
{
    int ok = s && prefix && strncmp(s, prefix, strlen(prefix)) == 0;
    if (!ok)
        fprintf(stderr, "%s:%d: %s is\n  \"%s\"\nwhich does not start with\n  \"%s\"\n", file,
                line, what, s ? s : "(null)", prefix ? prefix : "(null)");
    return check_at(ok, what, file, line);
}

#endif
