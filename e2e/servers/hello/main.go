// Command hello is a hello-world Go program: the floor for the start-up of
// any Go binary in the lean benchmark (e2e TestLeanBench).
package main

import "fmt"

func main() { fmt.Println("hello") }
