/* The SysY runtime library. Behaviour matches the official library: input is scanf
   ("%d", "%c", "%a"), output is printf on buffered stdout ("%d", "%c", "%a"), and the time
   between _sysy_starttime and _sysy_stoptime is reported on stderr at exit, one line per
   region and a total. */
#include "sylib.h"

#include <stdarg.h>
#include <stdio.h>
#include <sys/time.h>

int getint(void) {
    int t = 0;
    scanf("%d", &t);
    return t;
}

int getch(void) {
    unsigned char c;
    if (scanf("%c", &c) != 1)
        return -1;
    return c;
}

float getfloat(void) {
    float f = 0;
    scanf("%a", &f);
    return f;
}

int getarray(int a[]) {
    int n = 0;
    scanf("%d", &n);
    for (int i = 0; i < n; i++)
        scanf("%d", &a[i]);
    return n;
}

int getfarray(float a[]) {
    int n = 0;
    scanf("%d", &n);
    for (int i = 0; i < n; i++)
        scanf("%a", &a[i]);
    return n;
}

void putint(int a) { printf("%d", a); }

void putch(int a) { printf("%c", a); }

void putfloat(float a) { printf("%a", a); }

void putarray(int n, int a[]) {
    printf("%d:", n);
    for (int i = 0; i < n; i++)
        printf(" %d", a[i]);
    printf("\n");
}

void putfarray(int n, float a[]) {
    printf("%d:", n);
    for (int i = 0; i < n; i++)
        printf(" %a", a[i]);
    printf("\n");
}

void putf(const char a[], ...) {
    va_list args;
    va_start(args, a);
    vfprintf(stdout, a, args);
    va_end(args);
}

/* ---- timing ---------------------------------------------------------------------------- */

#define MAX_REGIONS 1024

static struct timeval region_start;
static int start_line[MAX_REGIONS], stop_line[MAX_REGIONS];
static long long region_us[MAX_REGIONS];
static int regions;

void _sysy_starttime(int lineno) {
    if (regions < MAX_REGIONS)
        start_line[regions] = lineno;
    gettimeofday(&region_start, NULL);
}

void _sysy_stoptime(int lineno) {
    struct timeval end;
    gettimeofday(&end, NULL);
    if (regions < MAX_REGIONS) {
        stop_line[regions] = lineno;
        region_us[regions] = 1000000LL * (end.tv_sec - region_start.tv_sec) +
                             (end.tv_usec - region_start.tv_usec);
        regions++;
    }
}

static void print_duration(long long us) {
    long long s = us / 1000000;
    fprintf(stderr, "%dH-%dM-%dS-%dus\n", (int)(s / 3600), (int)(s / 60 % 60), (int)(s % 60),
            (int)(us % 1000000));
}

__attribute__((destructor)) static void report_timers(void) {
    long long total = 0;
    fflush(stdout);
    for (int i = 0; i < regions; i++) {
        fprintf(stderr, "Timer@%04d-%04d: ", start_line[i], stop_line[i]);
        print_duration(region_us[i]);
        total += region_us[i];
    }
    fprintf(stderr, "TOTAL: ");
    print_duration(total);
}
