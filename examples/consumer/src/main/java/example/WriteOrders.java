package example;

import dev.flushline.writer.FlushlineSSTableWriter;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Writes a few orders into sstables in the directory given as the first argument. */
public final class WriteOrders {
    static final String TABLE = "CREATE TABLE shop.orders (customer_id uuid, order_time timestamp, order_id int, "
            + "status text, total decimal, items list<text>, PRIMARY KEY (customer_id, order_time, order_id))";
    static final String INSERT = "INSERT INTO shop.orders (customer_id, order_time, order_id, status, total, items) "
            + "VALUES (?, ?, ?, ?, ?, ?)";

    public static void main(String[] args) throws Exception {
        Path dir = Files.createDirectories(Path.of(args[0]));
        UUID customer = UUID.fromString("5b6962dd-3f90-4c93-8f61-eabfa4a803e2");
        try (FlushlineSSTableWriter writer = FlushlineSSTableWriter.builder()
                .inDirectory(dir)
                .forTable(TABLE)
                .using(INSERT)
                .build()) {
            writer.addRow(customer, java.util.Date.from(Instant.parse("2025-06-15T10:30:00Z")), 1, "placed",
                    new BigDecimal("42.50"), List.of("book", "pen"));
            writer.addRow(customer, java.util.Date.from(Instant.parse("2025-06-16T09:00:00Z")), 2, "placed",
                    new BigDecimal("19.99"), List.of("lamp"));
        }
    }
}
