package jsonscan

// Members walks the object whose '{' is b[i], calling fn for each member in
// document order with the decoded key (see Unquote), the index of the key's
// opening quote and the value's range b[valStart:valEnd]. It returns the
// index just after the closing '}'; what follows is the caller's business.
// An error from fn stops the walk and is returned as is.
func Members(b []byte, i int, fn func(key string, keyStart, valStart, valEnd int) error) (end int, err error) {
	if i < 0 || i >= len(b) || b[i] != '{' {
		return 0, ErrSyntax
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		ke, err := SkipString(b, i)
		if err != nil {
			return 0, err
		}
		key, err := Unquote(b[i:ke])
		if err != nil {
			return 0, err
		}
		ks := i
		i = SkipWS(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, ErrSyntax
		}
		vs := SkipWS(b, i+1)
		ve, err := SkipValue(b, vs)
		if err != nil {
			return 0, err
		}
		if err := fn(key, ks, vs, ve); err != nil {
			return 0, err
		}
		if i, err = next(b, ve, '}'); err != nil || b[i] == '}' {
			return i + 1, err
		}
		i = SkipWS(b, i+1)
	}
}

// Elements walks the array whose '[' is b[i], calling fn with the range
// b[valStart:valEnd] of each element in order. It returns the index just
// after the closing ']'. An error from fn stops the walk and is returned as
// is.
func Elements(b []byte, i int, fn func(valStart, valEnd int) error) (end int, err error) {
	if i < 0 || i >= len(b) || b[i] != '[' {
		return 0, ErrSyntax
	}
	i = SkipWS(b, i+1)
	if i < len(b) && b[i] == ']' {
		return i + 1, nil
	}
	for {
		ve, err := SkipValue(b, i)
		if err != nil {
			return 0, err
		}
		if err := fn(i, ve); err != nil {
			return 0, err
		}
		if i, err = next(b, ve, ']'); err != nil || b[i] == ']' {
			return i + 1, err
		}
		i = SkipWS(b, i+1)
	}
}

// next returns the index of the ',' or closing byte after a value ending at
// i, or ErrSyntax (with index -1) when anything else comes first.
func next(b []byte, i int, closing byte) (int, error) {
	i = SkipWS(b, i)
	if i >= len(b) || (b[i] != ',' && b[i] != closing) {
		return -1, ErrSyntax
	}
	return i, nil
}

// Without copies the object whose '{' is b[i] without the members whose
// decoded key drop reports, keeping the others' bytes as they are, and
// says how many it kept. On an error from the walk the members read so far
// are kept, the object closed, and the error returned.
func Without(b []byte, i int, drop func(key string) bool) (obj []byte, kept int, err error) {
	obj = []byte{'{'}
	_, err = Members(b, i, func(key string, ks, _, ve int) error {
		if drop(key) {
			return nil
		}
		if kept > 0 {
			obj = append(obj, ',')
		}
		obj = append(obj, b[ks:ve]...)
		kept++
		return nil
	})
	return append(obj, '}'), kept, err
}
