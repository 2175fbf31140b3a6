// CZip — libzip as Swift sees it.
//
// libzip's API is plain functions, so few wrappers are needed. What is here:
// - ia_zip_opsys_of: the "external attributes" operating-system byte and Unix mode of an entry are
//   returned through out-parameters whose meaning is defined by macros (ZIP_OPSYS_*, S_IFLNK); the
//   helper returns whether an entry is a symbolic link, which WalletPass must reject (rule A4).
// When it can go: never needed by Swift for correctness, only for readability of the mode bit test.
#ifndef INBOX_ASSETS_CZIP_SHIM_H
#define INBOX_ASSETS_CZIP_SHIM_H

#include <zip.h>
#include <sys/stat.h>

/// 1 when the entry's external attributes say it is a Unix symbolic link, 0 otherwise, -1 on error.
static inline int ia_zip_entry_is_symlink(zip_t *archive, zip_uint64_t index) {
    zip_uint8_t opsys = 0;
    zip_uint32_t attributes = 0;
    if (zip_file_get_external_attributes(archive, index, 0, &opsys, &attributes) != 0) {
        return -1;
    }
    if (opsys != ZIP_OPSYS_UNIX) {
        return 0;
    }
    mode_t mode = (mode_t)(attributes >> 16);
    return S_ISLNK(mode) ? 1 : 0;
}

// MARK: WalletPass additions (keep below this line)

#endif
