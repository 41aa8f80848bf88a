import java.nio.*; import java.nio.channels.*; import java.nio.file.*; import java.lang.management.*; import java.util.zip.CRC32;
public class Parts {
  public static void main(String[] a) throws Exception {
    byte[] block = new byte[1 << 20];
    for (int i = 0; i < block.length; i++) block[i] = (byte) i;
    ThreadMXBean mx = ManagementFactory.getThreadMXBean();
    Path dir = Files.createTempDirectory(Path.of("/work"), "parts");
    ByteBuffer direct = ByteBuffer.allocateDirect((1 << 20) + 4096).alignedSlice(4096);
    for (int round = 0; round < 400; round++) {
      long t0 = mx.getCurrentThreadCpuTime();
      CRC32 c = new CRC32(); for (int i = 0; i < 257; i++) { c.update(block, 0, block.length); }
      long t1 = mx.getCurrentThreadCpuTime();
      for (int i = 0; i < 257; i++) { direct.clear(); direct.put(block, 0, block.length); }
      long t2 = mx.getCurrentThreadCpuTime();
      Path f = dir.resolve("f" + round);
      FileChannel.open(f, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE).close();
      try (FileChannel ch = FileChannel.open(f, StandardOpenOption.WRITE, com.sun.nio.file.ExtendedOpenOption.DIRECT)) {
        for (int i = 0; i < 257; i++) { direct.clear(); long at = (long) i << 20; while (direct.hasRemaining()) ch.write(direct, at + direct.position()); }
      }
      long t3 = mx.getCurrentThreadCpuTime();
      ByteBuffer fresh = ByteBuffer.allocateDirect(1 << 20); for (int i = 0; i < (1<<20); i += 4096) fresh.put(i, (byte) 1);
      long t4 = mx.getCurrentThreadCpuTime();
      Files.delete(f);
      System.out.printf("%tT crc %d copy %d pwrite %d freshbuf %.2f ms%n", System.currentTimeMillis(), (t1-t0)/1000000, (t2-t1)/1000000, (t3-t2)/1000000, (t4-t3)/1e6);
      Thread.sleep(50);
    }
    Files.delete(dir);
  }
}
