package zsetcmd

import "github.com/limitkv/limitkv/internal/engine"

// GEO's errors (geo.c).
const (
	errGeoNeedRadius = "ERR need numeric radius"
	errGeoRadiusNeg  = "ERR radius cannot be negative"
	errGeoNeedWidth  = "ERR need numeric width"
	errGeoNeedHeight = "ERR need numeric height"
	errGeoBoxNeg     = "ERR height or width cannot be negative"
	errGeoCount      = "ERR COUNT must be > 0"
	errGeoStoreWith  = "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
	errGeoSStoreWith = "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options"
)

// errGeoPair is extractLongLatOrReply's range error: the pair printed
// with C's "%f".
func errGeoPair(lon, lat float64) string {
	return "ERR invalid longitude,latitude pair " + engine.CFixed6(lon) + "," + engine.CFixed6(lat)
}

// errGeoFrom and errGeoBy name the command as the client spelled it, as
// Redis prints argv[0].
func errGeoFrom(name []byte) string {
	return "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + string(name)
}

func errGeoBy(name []byte) string {
	return "ERR exactly one of BYRADIUS and BYBOX can be specified for " + string(name)
}
