// go_agent is a statically linked Go "agent" (CGO_ENABLED=0): the shim can
// never load into it, and it starts its tools the way a Go CLI does,
// through os/exec (syscall.ForkExec: a raw clone and execve) or
// syscall.Exec, never through libc.
//
//	go_agent env                  print its own environment
//	go_agent run PROG ARGS...     os/exec with its whole environment
//	go_agent strip PROG ARGS...   the same without any LD_* (like Codex)
//	go_agent bare PROG ARGS...    the same with only its BASH_ENV and
//	                              PATH: no ENVSHIM_* at all
//	go_agent exec PROG ARGS...    syscall.Exec: the agent becomes PROG
//
// The last four first print the agent's user, mnt and pid namespaces
// ("agent ns user user:[N]"), for a test to compare with its tool's; run,
// strip and bare exit with the tool's status (128+N for signal N).
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// ns prints the namespaces a test compares with what its shells see.
func ns() {
	for _, n := range []string{"user", "mnt", "pid"} {
		l, err := os.Readlink("/proc/self/ns/" + n)
		if err != nil {
			l = err.Error()
		}
		fmt.Printf("agent ns %s %s\n", n, l)
	}
}

// run starts argv as a child with env, wired to the agent's own stdio,
// and returns the status the agent should exit with.
func run(argv, env []string) int {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	default:
		fmt.Fprintln(os.Stderr, "go_agent:", err)
		return 127
	}
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "env" {
		for _, e := range os.Environ() {
			fmt.Println(e)
		}
		return
	}
	if len(os.Args) < 3 {
		os.Exit(2)
	}
	argv := os.Args[2:]
	ns()
	switch os.Args[1] {
	case "run":
		os.Exit(run(argv, os.Environ()))
	case "strip":
		var env []string
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "LD_") {
				env = append(env, e)
			}
		}
		os.Exit(run(argv, env))
	case "bare":
		os.Exit(run(argv, []string{"BASH_ENV=" + os.Getenv("BASH_ENV"),
			"PATH=/usr/bin:/bin"}))
	case "exec":
		err := syscall.Exec(argv[0], argv, os.Environ())
		fmt.Fprintln(os.Stderr, "go_agent: exec:", err)
		os.Exit(127)
	}
	os.Exit(2)
}
