package metrics

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// contentType is the text format's, version 0.0.4.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

// A gzip.Writer holds some hundreds of KB once used: scrapes reuse them.
var gzipPool = sync.Pool{New: func() any { return gzip.NewWriter(nil) }}

func serveScrape(w http.ResponseWriter, r *http.Request, src Source) {
	// The snapshot is the only part taken under the engine's lock.
	f := gather(src.MetricsSnapshot())
	// promhttp's filter: ?name[]=a&name[]=b serves those families only.
	var keep func(string) bool
	if r.URL != nil {
		if names := r.URL.Query()["name[]"]; len(names) > 0 {
			keep = func(n string) bool {
				for _, k := range names {
					if k == n {
						return true
					}
				}
				return false
			}
		}
	}
	body := f.appendText(make([]byte, 0, 16<<10), keep)

	h := w.Header()
	h.Add("Vary", "Accept")
	h.Add("Vary", "Accept-Encoding")
	h.Set("Content-Type", contentType)
	if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.Write(body)
		return
	}
	h.Set("Content-Encoding", "gzip")
	gz := gzipPool.Get().(*gzip.Writer)
	gz.Reset(w)
	gz.Write(body)
	gz.Close()
	gz.Reset(nil)
	gzipPool.Put(gz)
}

// acceptsGzip tells whether Accept-Encoding makes gzip the best of
// identity and gzip, as promhttp chooses: the higher q wins, identity on
// a tie (so "*" alone gives identity), nothing at q=0.
func acceptsGzip(headers []string) bool {
	identity, gz := -1.0, -1.0
	for _, hv := range headers {
		for _, spec := range strings.Split(hv, ",") {
			coding, params, _ := strings.Cut(spec, ";")
			coding = strings.TrimSpace(coding)
			q := 1.0
			if params = strings.TrimSpace(params); params != "" {
				v, ok := strings.CutPrefix(params, "q=")
				if !ok {
					continue
				}
				n, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
				if err != nil || n < 0 || n > 1 {
					continue
				}
				q = n
			}
			switch coding {
			case "gzip":
				gz = max(gz, q)
			case "identity":
				identity = max(identity, q)
			case "*":
				gz, identity = max(gz, q), max(identity, q)
			}
		}
	}
	return gz > 0 && gz > identity
}
