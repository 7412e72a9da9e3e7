/* check.h — the few assertion macros the test programs share; each program
 * ends with CHECK_DONE(), which prints "N passed, N failed" and sets the exit code. */
#ifndef NPU_TUNE_CHECK_H
#define NPU_TUNE_CHECK_H

#include <stdio.h>
#include <string.h>

static int check_pass, check_fail;

#define CHECK(cond) check_at((cond), #cond, __FILE__, __LINE__)
#define CHECK_INT(a, b) check_int((long long)(a), (long long)(b), #a, __FILE__, __LINE__)
#define CHECK_STR(a, b) check_str((a), (b), #a, __FILE__, __LINE__)
#define CHECK_DONE() (printf("%d passed, %d failed\n", check_pass, check_fail), check_fail != 0)

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

static inline int check_str(const char *a, const char *b, const char *what, const char *file, int line)
{
    int ok = a && b && strcmp(a, b) == 0;
    if (!ok)
        fprintf(stderr, "%s:%d: %s is\n  \"%s\"\nexpected\n  \"%s\"\n", file, line, what,
                a ? a : "(null)", b ? b : "(null)");
    return check_at(ok, what, file, line);
}

#endif
