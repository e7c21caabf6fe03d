import { StrictMode, useState, type FormEvent } from 'react';
import { createRoot } from 'react-dom/client';

// Minimal login page proving the server serves the built client; the full console replaces it.
function LoginPage() {
  const [message, setMessage] = useState<string>('');
  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const res = await fetch('/api/v1/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ username: form.get('username'), password: form.get('password') }),
    });
    const body = (await res.json()) as { code: number; message?: string; data?: { user: { username: string } } };
    setMessage(body.code === 0 ? `已登录：${body.data?.user.username}` : (body.message ?? '登录失败'));
  }
  return (
    <main style={{ maxWidth: 360, margin: '80px auto', fontFamily: 'system-ui, sans-serif' }}>
      <h1>内容生产平台</h1>
      <form onSubmit={onSubmit}>
        <label>
          用户名 <input name="username" autoComplete="username" required />
        </label>
        <br />
        <label>
          密码 <input name="password" type="password" autoComplete="current-password" required />
        </label>
        <br />
        <button type="submit">登录</button>
      </form>
      <p role="status">{message}</p>
    </main>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <LoginPage />
  </StrictMode>,
);
