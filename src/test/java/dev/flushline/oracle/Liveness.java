package dev.flushline.oracle;

/**
 * Primary-key liveness of a row (what an INSERT writes). EMPTY mirrors Cassandra's sentinels
 * (no timestamp, no ttl, no expiration time) so converted values compare equal.
 */
public record Liveness(long timestamp, int ttl, long localExpirationTime) {
    public static final long NO_TIMESTAMP = Long.MIN_VALUE;
    public static final long NO_EXPIRATION_TIME = Long.MAX_VALUE;
    public static final Liveness EMPTY = new Liveness(NO_TIMESTAMP, 0, NO_EXPIRATION_TIME);

    public static Liveness of(long timestamp) {
        return new Liveness(timestamp, 0, NO_EXPIRATION_TIME);
    }

    public static Liveness expiring(long timestamp, int ttl, long localExpirationTime) {
        return new Liveness(timestamp, ttl, localExpirationTime);
    }

    public boolean isEmpty() {
        return timestamp == NO_TIMESTAMP;
    }

    public boolean isExpiring() {
        return ttl != 0;
    }

    @Override
    public String toString() {
        if (isEmpty()) {
            return "noLiveness";
        }
        return isExpiring()
                ? "live(ts=" + timestamp + ",ttl=" + ttl + ",exp=" + localExpirationTime + ")"
                : "live(ts=" + timestamp + ")";
    }
}
