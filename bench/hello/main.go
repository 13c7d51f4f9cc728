// Command hello is the cold-path baseline of the figures: a static Go
// binary that prints one line and exits, the least a process start costs.
package main

import "os"

func main() { os.Stdout.WriteString("hello\n") }
