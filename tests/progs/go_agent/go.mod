module envshim.test/go_agent

go 1.19
