import dev.flushline.io.*;
import java.nio.file.*;
import java.lang.management.*;
public class SinkBench {
  public static void main(String[] a) throws Exception {
    boolean lz4 = a[0].equals("lz4");
    byte[] block = new byte[1 << 20];
    java.util.SplittableRandom r = new java.util.SplittableRandom(1);
    for (int i = 0; i < block.length; i++) block[i] = (byte) ('a' + r.nextInt(26));
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Path dir = Files.createTempDirectory(Path.of("/work"), "sinkbench");
    for (int round = 0; round < 12; round++) {
      Path d = dir.resolve("d" + round), c = dir.resolve("c" + round), g = dir.resolve("g" + round);
      long t0 = mx.getCurrentThreadCpuTime(); long u0 = mx.getCurrentThreadUserTime();
      DataSink s = lz4 ? new CompressedDataSink(d, c, g) : new UncompressedDataSink(d, c, g);
      for (int i = 0; i < 257; i++) { block[i] ^= 1; s.write(block, 0, block.length); }
      s.finish();
      long t1 = mx.getCurrentThreadCpuTime(); long u1 = mx.getCurrentThreadUserTime();
      System.out.print((t1 - t0) / 1_000_000 + "/" + (u1 - u0) / 1_000_000 + " ");
      Files.delete(d); Files.delete(c); Files.delete(g);
    }
    System.out.println();
    Files.delete(dir);
  }
}
