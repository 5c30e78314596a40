/* The SysY runtime library: input, output and timing, with the official names and
   signatures. SysY programs see these without declaring them. */
#ifndef SYLIB_H
#define SYLIB_H

int getint(void);
int getch(void);
float getfloat(void);
int getarray(int a[]);
int getfarray(float a[]);

void putint(int a);
void putch(int a);
void putfloat(float a);
void putarray(int n, int a[]);
void putfarray(int n, float a[]);
void putf(const char a[], ...);

/* starttime() and stoptime() in SysY become these, with the source line. */
void _sysy_starttime(int lineno);
void _sysy_stoptime(int lineno);

#endif
