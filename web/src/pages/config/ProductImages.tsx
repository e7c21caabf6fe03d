import { InboxOutlined, StarFilled } from '@ant-design/icons';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { AutoComplete, Button, Card, Empty, Image, Popconfirm, Space, Tag, Typography, Upload } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { api } from '../../api/endpoints';
import type { ProductImage } from '../../api/types';
import { QueryError } from '../../components/QueryError';
import { Thumb } from '../../components/Thumb';
import { tone } from '../../components/tags';
import { queryKeys, refresh } from '../../api/queryKeys';

export const ACCEPTED_IMAGES = 'image/jpeg,image/png,image/webp';

function SceneInput({ value, onChange, label }: { value: string; onChange: (v: string) => void; label: string }) {
  const { t } = useTranslation();
  return (
    <AutoComplete
      aria-label={label}
      value={value}
      onChange={onChange}
      // Suggestions contain the keywords image generation matches a storyboard role against.
      options={(t('images.sceneSuggestions', { returnObjects: true }) as string[]).map((s) => ({ value: s }))}
      style={{ width: 160 }}
      placeholder={label}
    />
  );
}

function ImageCard({ productId, image }: { productId: number; image: ProductImage }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [scene, setScene] = useState(image.scene);
  const reload = () => refresh.productImages(queryClient, productId);
  const saveScene = useMutation({ mutationFn: () => api.products.setScene(productId, image.id, scene.trim()), onSuccess: reload });
  const primary = useMutation({ mutationFn: () => api.products.setPrimary(productId, image.id), onSuccess: reload });
  const remove = useMutation({ mutationFn: () => api.products.removeImage(productId, image.id), onSuccess: reload });
  return (
    <Card size="small" style={{ width: 200 }} data-testid="product-image" cover={<div style={{ padding: 12 }}><Thumb url={image.url} alt={image.scene} width={174} /></div>}>
      {image.is_primary ? (
        <Tag color={tone('gold')} icon={<StarFilled aria-hidden />}>
          {t('images.primary')}
        </Tag>
      ) : (
        <Button size="small" onClick={() => primary.mutate()} loading={primary.isPending}>
          {t('images.setPrimary')}
        </Button>
      )}
      <Space.Compact style={{ marginTop: 8, width: '100%' }}>
        <SceneInput value={scene} onChange={setScene} label={t('images.scene')} />
        <Button onClick={() => saveScene.mutate()} disabled={!scene.trim() || scene === image.scene} loading={saveScene.isPending}>
          {t('form.save')}
        </Button>
      </Space.Compact>
      <Popconfirm title={t('images.deleteConfirm')} okText={t('form.ok')} cancelText={t('form.cancel')} onConfirm={() => remove.mutate()}>
        <Button size="small" danger type="link" style={{ paddingInline: 0, marginTop: 4 }}>
          {t('form.delete')}
        </Button>
      </Popconfirm>
    </Card>
  );
}

export function ProductImages({ productId }: { productId: number }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const [scene, setScene] = useState(() => t('images.sceneDefault'));
  const images = useQuery({ queryKey: queryKeys.products.images(productId), queryFn: () => api.products.images(productId) });
  const upload = useMutation({
    mutationFn: (file: File) => api.products.uploadImage(productId, file, scene.trim()),
    onSettled: () => refresh.productImages(queryClient, productId),
  });
  return (
    <>
      <Space style={{ marginBottom: 12 }} align="center">
        <Typography.Text>{t('images.uploadScene')}</Typography.Text>
        <SceneInput value={scene} onChange={setScene} label={t('images.uploadScene')} />
      </Space>
      <Upload.Dragger
        accept={ACCEPTED_IMAGES}
        multiple
        showUploadList={false}
        customRequest={({ file, onSuccess, onError }) => {
          upload.mutate(file as File, { onSuccess: () => onSuccess?.({}), onError: (e) => onError?.(e) });
        }}
        disabled={upload.isPending}
      >
        <p className="ant-upload-drag-icon">
          <InboxOutlined aria-hidden />
        </p>
        <p className="ant-upload-text">{t('images.drop')}</p>
        <p className="ant-upload-hint">{t('images.hint')}</p>
      </Upload.Dragger>
      <QueryError error={images.error} />
      <div style={{ marginTop: 16 }}>
        {images.data && images.data.items.length === 0 && <Empty description={t('images.none')} />}
        <Image.PreviewGroup>
          <Space wrap align="start">
            {images.data?.items.map((img) => <ImageCard key={img.id} productId={productId} image={img} />)}
          </Space>
        </Image.PreviewGroup>
      </div>
    </>
  );
}
