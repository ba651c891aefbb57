/* SPDX-License-Identifier: MIT */
/* rdmacm_api's cases 3 to 8 (rdmacm_cases.c, rdmacm_misuse.c). */
#ifndef RDMACM_CASES_H
#define RDMACM_CASES_H

void case_reject(void);
void case_ud(void);
void case_no_qp(void);
void case_misuse(void);
void case_destroy_migrate(void);
void case_threads(void);

#endif
