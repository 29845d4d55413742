package classplan

// Renamed reports the share-type rename behind a Recreate: the class was made for the share type
// with the same ID under another name (Manila, API 2.50+, renames types in place). Plan finds the class
// by that ID, so a rename is never a disappearance plus a new type: the class keeps its name, is not
// marked stale, and is recreated because its `type` parameter, immutable, follows the new name.
func Renamed(a Action) (from, to string, ok bool) {
	if a.Kind != Recreate || a.Existing == nil || a.Class == nil {
		return "", "", false
	}
	id := a.Class.Annotations[ShareTypeIDAnnotation]
	from, to = a.Existing.Annotations[ShareTypeNameAnnotation], a.Class.Annotations[ShareTypeNameAnnotation]
	if id == "" || a.Existing.Annotations[ShareTypeIDAnnotation] != id || from == "" || from == to {
		return "", "", false
	}
	return from, to, true
}
