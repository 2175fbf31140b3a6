internal import CZip

func _sanity() { _ = ia_zip_entry_is_symlink(nil, 0) }
