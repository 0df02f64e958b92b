package kafkaharness

import (
	"fmt"
	"net"
)

// FreePorts returns n distinct free TCP ports on 127.0.0.1: the kernel picks
// them (bind to port 0), all held open until every one is chosen so none
// repeats. The race until the JVM binds them is met by a retry in Start.
func FreePorts(n int) ([]int, error) {
	ports := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		defer l.Close()
		addr, ok := l.Addr().(*net.TCPAddr)
		if !ok {
			return nil, fmt.Errorf("listener on %s is not TCP", l.Addr())
		}
		ports = append(ports, addr.Port)
	}
	return ports, nil
}
