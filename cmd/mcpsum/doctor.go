package main

import (
	"context"

	"github.com/peterbourgon/ff/v3/ffcli"
)

func (a *app) doctorCommand() *ffcli.Command {
	return &ffcli.Command{
		Name:       "doctor",
		ShortUsage: "mcpsum doctor",
		ShortHelp:  "report which sandbox confinement this machine can enforce",
		Exec: func(ctx context.Context, args []string) error {
			return notAvailable("mcpsum doctor")
		},
	}
}
