package dev.flushline.oracle;

/**
 * One cell. {@code path} is null for simple columns and the cell path (set element, map key, list
 * time-UUID) for cells of a complex column. Tombstone/expiring are derived exactly as Cassandra does:
 * expiring iff ttl != 0, tombstone iff not expiring and a local deletion time is set.
 */
public record Cell(String column, Bytes path, long timestamp, int ttl, long localDeletionTime, Bytes value)
        implements ColumnData {
    public static final long NO_DELETION_TIME = Long.MAX_VALUE;

    public static Cell live(String column, long timestamp, Bytes value) {
        return new Cell(column, null, timestamp, 0, NO_DELETION_TIME, value);
    }

    public static Cell expiring(String column, long timestamp, int ttl, long localExpirationTime, Bytes value) {
        return new Cell(column, null, timestamp, ttl, localExpirationTime, value);
    }

    public static Cell tombstone(String column, long timestamp, long localDeletionTime) {
        return new Cell(column, null, timestamp, 0, localDeletionTime, Bytes.EMPTY);
    }

    public Cell withPath(Bytes cellPath) {
        return new Cell(column, cellPath, timestamp, ttl, localDeletionTime, value);
    }

    public boolean isExpiring() {
        return ttl != 0;
    }

    public boolean isTombstone() {
        return ttl == 0 && localDeletionTime != NO_DELETION_TIME;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(column);
        if (path != null) {
            sb.append('[').append(path).append(']');
        }
        sb.append("@").append(timestamp);
        if (isTombstone()) {
            sb.append(" TOMBSTONE ldt=").append(localDeletionTime);
        } else if (isExpiring()) {
            sb.append(" ttl=").append(ttl).append(" exp=").append(localDeletionTime);
        }
        if (!isTombstone() || value.length() > 0) {
            sb.append('=').append(value);
        }
        return sb.toString();
    }
}
