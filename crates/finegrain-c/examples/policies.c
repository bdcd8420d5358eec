/* The registered scheduling policies, one name a line (fg_policy_count,
 * fg_policy_name): scripts/c_api.sh runs every example under each. */
#include <finegrain.h>
#include <stdio.h>

int main(void) {
    for (size_t i = 0; i < fg_policy_count(); i++)
        printf("%s\n", fg_policy_name(i));
    return 0;
}
