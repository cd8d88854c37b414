package io.clockwork.benchmarks.queue;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 connection for the harness's admin commands ({@code INFO}, {@code FLUSHALL},
 * {@code CONFIG RESETSTAT}, {@code CLUSTER ...}), kept apart from both clients under test so that neither pays for
 * the harness's bookkeeping. Not thread-safe: owned by one thread.
 */
final class Resp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    Resp(int port, int timeoutMs) {
        try {
            socket = new Socket();
            socket.connect(new InetSocketAddress("127.0.0.1", port), timeoutMs);
            socket.setSoTimeout(timeoutMs);
            socket.setTcpNoDelay(true);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot connect to 127.0.0.1:" + port, e);
        }
    }

    /**
     * Sends one command and reads its reply.
     *
     * @param args the command and its arguments
     * @return a String, Long, List or null; an error reply throws {@link IllegalStateException}
     */
    Object call(String... args) {
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(("*" + args.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
            for (String a : args) {
                byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
                b.write(("$" + bytes.length + "\r\n").getBytes(StandardCharsets.US_ASCII));
                b.write(bytes);
                b.write('\r');
                b.write('\n');
            }
            out.write(b.toByteArray());
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException("redis " + args[0] + " failed", e);
        }
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len + 2);
                return new String(data, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(read());
                }
                return list;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            sb.append((char) c);
        }
        in.read();
        return sb.toString();
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing
        }
    }
}
