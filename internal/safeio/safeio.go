package safeio

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// TooLargeError is a file over the cap.
type TooLargeError struct {
	What, Path string
	Size, Max  int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s %s is %d bytes, over the %d-byte limit: it is not a %s mcpsum wrote; check the path", e.What, e.Path, e.Size, e.Max, e.What)
}

// NotRegularError is a path naming a FIFO, device, directory or socket.
type NotRegularError struct {
	What, Path string
	Mode       fs.FileMode
}

func (e *NotRegularError) Error() string {
	kind := "not a regular file"
	switch {
	case e.Mode&fs.ModeNamedPipe != 0:
		kind = "a named pipe (FIFO)"
	case e.Mode&fs.ModeCharDevice != 0:
		kind = "a character device"
	case e.Mode&fs.ModeDevice != 0:
		kind = "a block device"
	case e.Mode.IsDir():
		kind = "a directory"
	case e.Mode&fs.ModeSocket != 0:
		kind = "a socket"
	}
	return fmt.Sprintf("%s %s is %s, not a regular file: point the option at the %s itself", e.What, e.Path, kind, e.What)
}

// ReadRegular reads the regular file at path, at most max bytes. what names
// the file in errors ("lockfile", "signature bundle"). A missing file gives
// an error matching fs.ErrNotExist.
func ReadRegular(path, what string, max int64) ([]byte, error) {
	return read(path, what, max, 0)
}

// LinkError is a path ReadOwn refused because its last element is a
// symbolic link.
type LinkError struct{ What, Path string }

func (e *LinkError) Error() string {
	return fmt.Sprintf("%s %s is a symbolic link, not a file mcpsum wrote; remove it", e.What, e.Path)
}

// ReadOwn is ReadRegular for a file mcpsum itself wrote (a backup, state):
// a symbolic link in its place is refused (LinkError), not followed, so a
// planted link cannot make mcpsum read another file.
func ReadOwn(path, what string, max int64) ([]byte, error) {
	data, err := read(path, what, max, oNoFollow)
	if errors.Is(err, syscall.ELOOP) {
		return nil, &LinkError{What: what, Path: path}
	}
	return data, err
}

func read(path, what string, max int64, flags int) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOCTTY|flags, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, &NotRegularError{What: what, Path: path, Mode: fi.Mode()}
	}
	if fi.Size() > max {
		return nil, &TooLargeError{What: what, Path: path, Size: fi.Size(), Max: max}
	}
	data, err := readAll(f, fi.Size(), max)
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max { // grew while being read
		return nil, &TooLargeError{What: what, Path: path, Size: int64(len(data)), Max: max}
	}
	return data, nil
}

// readAll reads f to its end, or to one byte over max, into a buffer
// sized from the file's size (one more byte to see its end in one read):
// a 500 KB lock read by io.ReadAll's doubling allocated 1.4 MB.
func readAll(f io.Reader, size, max int64) ([]byte, error) {
	data := make([]byte, 0, min(size, max)+1)
	for int64(len(data)) <= max {
		if len(data) == cap(data) { // grew while being read
			data = append(data, 0)[:len(data)]
		}
		n, err := f.Read(data[len(data):min(int64(cap(data)), max+1)])
		data = data[:len(data)+n]
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	return data, nil
}

// IsLimit reports whether err is a refusal by ReadRegular (not a regular
// file, or too large).
func IsLimit(err error) bool {
	var a *TooLargeError
	var b *NotRegularError
	var c *LinkError
	return errors.As(err, &a) || errors.As(err, &b) || errors.As(err, &c)
}
