package pgwire

import (
	"context"
	"errors"
	"runtime"
	"slices"
	"sync"
)

// Pool shares up to a fixed number of connections among goroutines. A
// connection that broke, or that a caller left inside a transaction, is
// closed instead of reused; an idle one the server has closed meanwhile is
// noticed before it is handed out.
type Pool struct {
	cfg    *Config
	slots  chan struct{} // one per connection that may exist
	mu     sync.Mutex
	idle   []*Conn
	all    map[*Conn]bool
	closed bool
}

// ErrClosed is the error of a closed pool.
var ErrClosed = errors.New("the connection pool is closed")

// NewPool makes a pool of at most size connections (0: four, or one per
// CPU when there are more). It connects lazily.
func NewPool(cfg *Config, size int) *Pool {
	if size <= 0 {
		size = max(4, runtime.NumCPU())
	}
	return &Pool{cfg: cfg, slots: make(chan struct{}, size), all: map[*Conn]bool{}}
}

// Acquire returns a connection for the caller alone; Release gives it back.
func (p *Pool) Acquire(ctx context.Context) (*Conn, error) {
	select {
	case p.slots <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	for {
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			<-p.slots
			return nil, ErrClosed
		}
		var c *Conn
		if n := len(p.idle); n > 0 {
			c, p.idle = p.idle[n-1], p.idle[:n-1]
		}
		p.mu.Unlock()
		if c == nil {
			break
		}
		if c.alive() {
			return c, nil
		}
		p.drop(c)
	}
	c, err := Connect(ctx, p.cfg)
	if err != nil {
		<-p.slots
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		c.Close()
		<-p.slots
		return nil, ErrClosed
	}
	p.all[c] = true
	return c, nil
}

// Release gives c back: kept when it is idle and whole, closed otherwise.
func (p *Pool) Release(c *Conn) {
	p.mu.Lock()
	keep := !p.closed && !c.broken && c.status == 'I'
	if keep {
		p.idle = append(p.idle, c)
	}
	p.mu.Unlock()
	if !keep {
		p.drop(c)
	}
	<-p.slots
}

func (p *Pool) drop(c *Conn) {
	c.Close()
	p.mu.Lock()
	delete(p.all, c)
	p.mu.Unlock()
}

// alive checks an idle connection without a round trip: the server has
// nothing to say to an idle client, so anything readable (an error before
// it closed, or the close itself) means it is gone.
func (c *Conn) alive() bool {
	return !c.broken && c.rd.r.Buffered() == 0 && !readable(c.raw)
}

// Close closes every connection, the ones in use included (their
// statements fail), and makes Acquire fail.
func (p *Pool) Close() {
	p.mu.Lock()
	p.closed = true
	conns := make([]*Conn, 0, len(p.all))
	for c := range p.all {
		conns = append(conns, c)
	}
	idle := p.idle
	p.idle, p.all = nil, map[*Conn]bool{}
	p.mu.Unlock()
	for _, c := range conns {
		if slices.Contains(idle, c) {
			c.Close()
		} else {
			c.raw.Close() // in use: its owner sees the error
		}
	}
}

// Exec runs sql on a pooled connection and returns its command tag.
func (p *Pool) Exec(ctx context.Context, sql string, args ...any) (string, error) {
	res, err := p.Query(ctx, sql, args...)
	if err != nil {
		return "", err
	}
	return res.Tag, nil
}

// Query runs sql on a pooled connection.
func (p *Pool) Query(ctx context.Context, sql string, args ...any) (*Result, error) {
	c, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer p.Release(c)
	return c.Query(ctx, sql, args...)
}

// QueryRow runs sql and returns its first row (ErrNoRows when none).
func (p *Pool) QueryRow(ctx context.Context, sql string, args ...any) ([][]byte, error) {
	return firstRow(p.Query(ctx, sql, args...))
}

// Tx is a transaction on one pooled connection. Commit or Rollback ends it
// and gives the connection back; Rollback after Commit does nothing.
type Tx struct {
	p    *Pool
	c    *Conn
	done bool
}

// Begin starts a transaction.
func (p *Pool) Begin(ctx context.Context) (*Tx, error) {
	c, err := p.Acquire(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := c.Exec(ctx, "BEGIN"); err != nil {
		p.Release(c)
		return nil, err
	}
	return &Tx{p: p, c: c}, nil
}

// Query runs sql inside the transaction.
func (tx *Tx) Query(ctx context.Context, sql string, args ...any) (*Result, error) {
	if tx.done {
		return nil, errors.New("the transaction has ended")
	}
	return tx.c.Query(ctx, sql, args...)
}

// Exec runs sql inside the transaction and returns its command tag.
func (tx *Tx) Exec(ctx context.Context, sql string, args ...any) (string, error) {
	res, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return "", err
	}
	return res.Tag, nil
}

// QueryRow runs sql inside the transaction and returns its first row.
func (tx *Tx) QueryRow(ctx context.Context, sql string, args ...any) ([][]byte, error) {
	return firstRow(tx.Query(ctx, sql, args...))
}

// Commit commits; ErrTxRolledBack when the transaction had failed.
func (tx *Tx) Commit(ctx context.Context) error {
	if tx.done {
		return errors.New("the transaction has ended")
	}
	tx.done = true
	defer tx.p.Release(tx.c)
	tag, err := tx.c.Exec(ctx, "COMMIT")
	if err == nil && tag != "COMMIT" {
		err = ErrTxRolledBack
	}
	return err
}

// Rollback rolls back (nothing after Commit or Rollback).
func (tx *Tx) Rollback(ctx context.Context) error {
	if tx.done {
		return nil
	}
	tx.done = true
	defer tx.p.Release(tx.c)
	_, err := tx.c.Exec(ctx, "ROLLBACK")
	return err
}
