import { Modal, Radio, Slider, Space, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { cropWindow, type Framing } from './uploadChecks';

const BOX = 240;

/** The 3:4 result as it will look: the window of the image at `focus`, or the whole image on `background`. */
function Result({ url, width, height, framing }: { url: string; width: number; height: number; framing: Framing }) {
  const { t } = useTranslation();
  const h = (BOX * 4) / 3;
  if (framing.fit === 'pad') {
    return (
      <div data-testid="framing-result" aria-label={t('desk.framing.result')} role="img" style={{ width: BOX, height: h, background: framing.background, display: 'flex', alignItems: 'center', justifyContent: 'center', border: '1px solid #d9d9d9' }}>
        <img src={url} alt="" style={{ maxWidth: '100%', maxHeight: '100%' }} />
      </div>
    );
  }
  const w = cropWindow(width, height, framing.focus);
  // Scale the image so the window fills the box, then shift it to the window.
  const scale = BOX / (w.width * width);
  return (
    <div data-testid="framing-result" aria-label={t('desk.framing.result')} role="img" style={{ width: BOX, height: h, overflow: 'hidden', position: 'relative', border: '1px solid #d9d9d9' }}>
      <img
        src={url}
        alt=""
        style={{ position: 'absolute', width: width * scale, height: height * scale, maxWidth: 'none', left: -w.left * width * scale, top: -w.top * height * scale }}
      />
    </div>
  );
}

/**
 * How a picture that is not 3:4 becomes one, asked before it is sent: a 3:4 window (裁切) placed
 * with a slider along the axis that is cut, or the whole picture (完整保留) on a colour.
 */
export function FramingDialog({
  image,
  busy,
  onCancel,
  onConfirm,
}: {
  image: { url: string; width: number; height: number; name: string } | undefined;
  busy: boolean;
  onCancel: () => void;
  onConfirm: (framing: Framing) => void;
}) {
  const { t } = useTranslation();
  const [fit, setFit] = useState<'crop' | 'pad'>('crop');
  const [focus, setFocus] = useState(50);
  const [background, setBackground] = useState('#ffffff');
  const framing: Framing = fit === 'crop' ? { fit: 'crop', focus: focus / 100 } : { fit: 'pad', background };
  const axis = image && image.width / image.height > 3 / 4 ? 'x' : 'y';
  return (
    <Modal
      open={Boolean(image)}
      title={t('desk.framing.title')}
      okText={t('desk.framing.upload')}
      cancelText={t('form.cancel')}
      confirmLoading={busy}
      onOk={() => onConfirm(framing)}
      onCancel={onCancel}
      width={380}
      destroyOnHidden
    >
      {image && (
        <Space orientation="vertical" style={{ width: '100%' }} data-testid="framing-dialog">
          <Typography.Text type="secondary">{t('desk.framing.why', { width: image.width, height: image.height })}</Typography.Text>
          <Radio.Group value={fit} onChange={(e) => setFit(e.target.value as 'crop' | 'pad')} optionType="button" buttonStyle="solid">
            <Radio value="crop">{t('desk.framing.crop')}</Radio>
            <Radio value="pad">{t('desk.framing.pad')}</Radio>
          </Radio.Group>
          {fit === 'crop' ? (
            <label style={{ display: 'block' }}>
              <Typography.Text>{t(axis === 'x' ? 'desk.framing.focusX' : 'desk.framing.focusY')}</Typography.Text>
              <Slider min={0} max={100} value={focus} onChange={setFocus} tooltip={{ formatter: null }} aria-label={t(axis === 'x' ? 'desk.framing.focusX' : 'desk.framing.focusY')} />
            </label>
          ) : (
            <label style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
              <Typography.Text>{t('desk.framing.background')}</Typography.Text>
              <input type="color" value={background} onChange={(e) => setBackground(e.target.value)} aria-label={t('desk.framing.background')} data-testid="framing-background" />
              <Typography.Text type="secondary">{background}</Typography.Text>
            </label>
          )}
          <div style={{ display: 'flex', justifyContent: 'center' }}>
            <Result url={image.url} width={image.width} height={image.height} framing={framing} />
          </div>
        </Space>
      )}
    </Modal>
  );
}
