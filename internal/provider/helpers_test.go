package provider

// ptrTo is a pointer to a copy of v, for optional fields in test tables.
func ptrTo[T any](v T) *T { return &v }
