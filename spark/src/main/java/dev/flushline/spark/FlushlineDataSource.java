package dev.flushline.spark;

import org.apache.spark.sql.connector.catalog.SupportsWrite;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCapability;
import org.apache.spark.sql.connector.catalog.TableProvider;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.connector.write.LogicalWriteInfo;
import org.apache.spark.sql.connector.write.WriteBuilder;
import org.apache.spark.sql.sources.DataSourceRegister;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;

/**
 * {@code df.write.format("flushline")}: a write-only DataSource V2 whose table is the CREATE TABLE
 * statement given in the {@code table} option. It accepts any input schema (the write matches
 * DataFrame columns to table columns by name and checks the types itself), so Spark does not
 * resolve the DataFrame against a table schema of its own.
 *
 * <p>Thread safety: stateless; Spark creates it per use.
 */
public final class FlushlineDataSource implements TableProvider, DataSourceRegister {
    @Override
    public String shortName() {
        return "flushline";
    }

    @Override
    public StructType inferSchema(CaseInsensitiveStringMap options) {
        return new StructType();
    }

    @Override
    public Table getTable(StructType schema, Transform[] partitioning, Map<String, String> properties) {
        return new FlushlineTable();
    }

    /** The table: nothing but the capability to be written. */
    static final class FlushlineTable implements SupportsWrite {
        @Override
        public String name() {
            return "flushline";
        }

        @Override
        @SuppressWarnings("deprecation")
        public StructType schema() {
            return new StructType();
        }

        @Override
        public Set<TableCapability> capabilities() {
            return EnumSet.of(TableCapability.BATCH_WRITE, TableCapability.ACCEPT_ANY_SCHEMA);
        }

        @Override
        public WriteBuilder newWriteBuilder(LogicalWriteInfo info) {
            WriteOptions options = WriteOptions.parse(info.options().asCaseSensitiveMap());
            return new WriteBuilder() {
                @Override
                public org.apache.spark.sql.connector.write.Write build() {
                    return new FlushlineWrite(options, info.schema(), info.queryId());
                }
            };
        }
    }
}
