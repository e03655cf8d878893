//go:build linux && (amd64 || arm64)

package sandbox

import (
	"encoding/binary"
	"testing"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// TestSeccompProgram runs the filter in x/net/bpf's VM. The VM loads words in
// network byte order, so the test writes seccomp_data's fields big-endian at
// the offsets the filter reads; the live kernel path is TestEscapes.
func TestSeccompProgram(t *testing.T) {
	vm, err := bpf.NewVM(seccompProgram())
	if err != nil {
		t.Fatal(err)
	}
	data := func(arch, nr uint32, args ...uint32) []byte {
		b := make([]byte, 64)
		binary.BigEndian.PutUint32(b[offNr:], nr)
		binary.BigEndian.PutUint32(b[offArch:], arch)
		for i, a := range args {
			binary.BigEndian.PutUint32(b[offArg0+8*i:], a)
		}
		return b
	}
	const native = auditArch
	cases := []struct {
		name string
		in   []byte
		want uint32
	}{
		{"read", data(native, unix.SYS_READ), retAllow},
		{"socket(AF_INET)", data(native, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, 0), retAllow},
		{"socket(AF_INET6)", data(native, unix.SYS_SOCKET, unix.AF_INET6, unix.SOCK_STREAM, 0), retAllow},
		{"socket(AF_UNIX)", data(native, unix.SYS_SOCKET, unix.AF_UNIX, unix.SOCK_STREAM, 0), retEPERM},
		{"socket(MPTCP)", data(native, unix.SYS_SOCKET, unix.AF_INET, unix.SOCK_STREAM, unix.IPPROTO_MPTCP), retEPERM},
		{"socketpair(AF_UNIX)", data(native, unix.SYS_SOCKETPAIR, unix.AF_UNIX, unix.SOCK_STREAM, 0), retAllow},
		{"socket(AF_VSOCK)", data(native, unix.SYS_SOCKET, unix.AF_VSOCK, unix.SOCK_STREAM, 0), retNoAF},
		{"socket(AF_PACKET)", data(native, unix.SYS_SOCKET, unix.AF_PACKET, unix.SOCK_RAW, 0), retNoAF},
		{"socket(AF_ALG)", data(native, unix.SYS_SOCKET, unix.AF_ALG, unix.SOCK_SEQPACKET, 0), retNoAF},
		{"socket(AF_BLUETOOTH)", data(native, unix.SYS_SOCKET, unix.AF_BLUETOOTH, unix.SOCK_STREAM, 0), retNoAF},
		{"socket(AF_NETLINK, ROUTE)", data(native, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_ROUTE), retAllow},
		{"socket(AF_NETLINK, AUDIT)", data(native, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_AUDIT), retNoAF},
		{"socket(AF_NETLINK, KOBJECT_UEVENT)", data(native, unix.SYS_SOCKET, unix.AF_NETLINK, unix.SOCK_RAW, unix.NETLINK_KOBJECT_UEVENT), retNoAF},
		{"socket(family 255)", data(native, unix.SYS_SOCKET, 255, unix.SOCK_STREAM, 0), retNoAF},
		{"socketpair(AF_INET)", data(native, unix.SYS_SOCKETPAIR, unix.AF_INET, unix.SOCK_STREAM, 0), retNoAF},
		{"clone(thread)", data(native, unix.SYS_CLONE, unix.CLONE_VM|unix.CLONE_THREAD|unix.CLONE_SIGHAND), retAllow},
		{"clone(NEWUSER)", data(native, unix.SYS_CLONE, unix.CLONE_NEWUSER), retEPERM},
		{"clone(NEWNET|fork)", data(native, unix.SYS_CLONE, unix.CLONE_NEWNET|uint32(unix.SIGCHLD)), retEPERM},
		{"clone3", data(native, unix.SYS_CLONE3), retNoSys},
		{"io_uring_setup", data(native, unix.SYS_IO_URING_SETUP), retNoSys},
		{"ptrace", data(native, unix.SYS_PTRACE), retEPERM},
		{"process_vm_readv", data(native, unix.SYS_PROCESS_VM_READV), retEPERM},
		{"unshare", data(native, unix.SYS_UNSHARE), retEPERM},
		{"setns", data(native, unix.SYS_SETNS), retEPERM},
		{"mount", data(native, unix.SYS_MOUNT), retEPERM},
		{"open_tree", data(native, unix.SYS_OPEN_TREE), retEPERM},
		{"bpf", data(native, unix.SYS_BPF), retEPERM},
		{"keyctl", data(native, unix.SYS_KEYCTL), retEPERM},
		{"ioctl(TIOCSTI)", data(native, unix.SYS_IOCTL, 0, unix.TIOCSTI), retEPERM},
		{"ioctl(FIONBIO)", data(native, unix.SYS_IOCTL, 0, 0x5421 /* FIONBIO */), retAllow},
		// Foreign architectures never reach the default action.
		{"i386 socketcall", data(unix.AUDIT_ARCH_I386, 102), retNoSys},
		{"i386 socket(AF_UNIX)", data(unix.AUDIT_ARCH_I386, 359, unix.AF_UNIX), retNoSys},
		{"i386 read", data(unix.AUDIT_ARCH_I386, 3), retNoSys},
	}
	if x32Bit != 0 {
		cases = append(cases, struct {
			name string
			in   []byte
			want uint32
		}{"x32 socket", data(native, x32Bit|41, unix.AF_UNIX), retNoSys})
	}
	for _, c := range cases {
		got, err := vm.Run(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if uint32(got) != c.want {
			t.Errorf("%s: got %#x, want %#x", c.name, got, c.want)
		}
	}
	if _, err := bpf.Assemble(seccompProgram()); err != nil {
		t.Fatal(err)
	}
}
