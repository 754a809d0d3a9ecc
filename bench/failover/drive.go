package main

import (
	"sync"
	"time"
)

// drive runs the users' checks from workers goroutines until runFor has
// passed since t0: worker w owns users w, w+workers, ... (sorted by
// arrival, first(i)); from its arrival on, each user is checked every
// every, up to batch users per check call. It returns when the run is
// over and every worker has stopped.
func drive(t0 time.Time, n, workers, batch int, runFor, every time.Duration,
	first func(i int) time.Duration, check func(idx []int)) {
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := make(map[int]time.Duration)
			var idx []int
			flush := func() {
				if len(idx) == 0 {
					return
				}
				check(idx)
				for _, j := range idx {
					next[j] = time.Since(t0) + every
				}
				idx = idx[:0]
			}
			for {
				el := time.Since(t0)
				if el >= runFor {
					return
				}
				for i := w; i < n && first(i) <= el; i += workers {
					at, ok := next[i]
					if !ok {
						at = first(i)
					}
					if at <= el {
						idx = append(idx, i)
					}
					if len(idx) == batch {
						flush()
					}
				}
				flush()
				time.Sleep(10 * time.Millisecond)
			}
		}()
	}
	wg.Wait()
}
