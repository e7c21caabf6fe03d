import { describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { ApiError, errorMessage } from './client';
import { wordFailure } from './errorText';

const zh = (status: number, code: number, message: string) => errorMessage(new ApiError(status, code, message));

describe('server errors in the interface language', () => {
  it('words every contract error code in Chinese, keeping the data a message carries', async () => {
    await i18n.changeLanguage('zh-CN');
    expect(zh(401, 40102, 'wrong username or password')).toBe('用户名或密码错误');
    expect(zh(400, 40000, 'current_password is wrong')).toBe('当前密码不正确');
    expect(zh(415, 41500, 'the upload is not a JPEG, PNG or WebP image (checked by its content)')).toBe('只支持 JPEG、PNG 或 WebP 图片');
    expect(zh(422, 42202, 'banned words (hard_block) found: 国家级, 最')).toBe('含有禁止使用的违禁词：国家级、最');
    expect(zh(409, 40900, 'archive is not accepted while the task is pending_review (accepted: approved)')).toBe('任务当前为“待审核”，不能进行此操作');
    expect(zh(400, 40000, 'body.theme must not be blank')).toBe('“主题”不能为空');
    expect(zh(429, 42900, 'too many failed logins for this username; try again in 15 min')).toBe('登录失败次数过多，请 15 分钟后再试');
    // A sentence this client does not know still reads in Chinese, by its code.
    expect(zh(400, 40000, 'body/title must NOT have more than 20 characters')).toBe('提交的内容不符合要求，请检查后重试');
    // A provider failure says what to fix, from the advice in the server's message.
    expect(zh(502, 50200, 'deepseek text generation failed after 1 attempt (HTTP 402): the account has no balance left. Provider said: Insufficient Balance')).toBe(
      'AI 服务调用失败：AI 服务账户余额不足，请到服务商控制台充值后重试',
    );
    expect(zh(418, 41800, 'I am a teapot')).toBe('服务器返回错误（HTTP 418）');
    // The webhook rules, with the server's own messages.
    expect(zh(400, 40000, 'body.url: hooks.internal resolves to a non-public address; only public http(s) addresses are allowed')).toBe(
      'Webhook 地址无效或指向内网：只能使用可从公网访问的 http(s) 地址',
    );
    expect(zh(400, 40000, 'body.secret: a WeCom group robot has no signing secret; leave it empty')).toBe('企业微信群机器人没有签名密钥，请留空');
  });

  it('words the same codes in English when the interface is English', async () => {
    await i18n.changeLanguage('en');
    expect(zh(401, 40102, 'wrong username or password')).toBe('Wrong username or password');
    expect(zh(422, 42202, 'banned words (hard_block) found: 国家级')).toBe('Contains banned words that are never allowed: 国家级');
    await i18n.changeLanguage('zh-CN');
  });
});

describe('failures recorded by the server, worded', () => {
  const t = i18n.getFixedT('zh-CN');
  const advice = 'deepseek text generation failed after 1 attempt (HTTP 401): the key was refused. Provider said: Incorrect API key provided';

  it('says what failed and why, by the provider failure kind', () => {
    expect(wordFailure(t, `texts of set B failed: ${advice}`)).toBe('B 组文案生成失败：AI 服务拒绝了密钥，请在“AI 服务连接”中检查或更换密钥');
    expect(wordFailure(t, 'image A2 (detail) failed: openai image generation failed after 1 attempt: no answer in time. Provider said: aborted')).toBe(
      '图片 A2 生成失败：AI 服务响应超时，请重试',
    );
    expect(wordFailure(t, 'partly done: 1 of 3 text sets failed, 2 of 9 images failed; the rest is ready')).toBe('部分完成（1/3 组文案失败，2/9 张图片失败），其余内容已就绪');
    expect(wordFailure(t, 'main image failed: whatever the provider said', 'rate_limited')).toBe('图片生成失败：AI 服务限流：在“AI 服务连接”中调低该连接的并发，或到服务商提高额度后重试');
    // Zhipu's empty balance arrives as a 429; the server's kind, not the status, decides the words.
    expect(wordFailure(t, 'texts of set A failed: zhipu text generation failed after 1 attempt (HTTP 429): the account has no balance left. Provider said: 余额不足')).toBe(
      'A 组文案生成失败：AI 服务账户余额不足，请到服务商控制台充值后重试',
    );
    expect(wordFailure(t, 'something no client knows')).toBe('生成失败：出现意外错误，请重试');
  });

  it('tells apart the situations one kind covers where the fix differs', () => {
    // The server's own wordings (server/src/providers/errors.ts and openai-compatible.ts).
    const region = "openai text generation failed after 1 attempt (HTTP 403): the provider refuses requests from this server's country or region: use a relay or another provider. Provider said: Country, region, or territory not supported";
    expect(wordFailure(t, `texts of set A failed: ${region}`, 'unsupported')).toBe('A 组文案生成失败：服务商不接受来自本服务器所在国家或地区的请求：请改用中转地址（兼容接口）或其他服务商');
    const context = "deepseek text generation failed after 1 attempt (HTTP 400): the request is longer than the model's context window: choose a model with a larger context or shorten the product's texts. Provider said: This model's maximum context length is 131072 tokens.";
    expect(wordFailure(t, `texts of set B failed: ${context}`, 'unsupported')).toMatch(/^B 组文案生成失败：请求超出模型的上下文长度/);
    const thinking = "deepseek text generation: the model's thinking used the whole budget before it answered (set the connection's thinking to off) at its output budget of 16 tokens";
    expect(wordFailure(t, thinking, 'truncated')).toBe('生成失败：模型的思考用完了输出额度，没有给出回答：请在“AI 服务连接”中把该连接的“思考”设为关闭');
    // Without such a wording, the kind decides as before.
    expect(wordFailure(t, 'texts of set C failed: cut', 'truncated')).toMatch(/超出输出上限被截断/);
  });
});
